#pragma once
namespace poplar {

// How program::PrintTensor lays out values.
struct PrintTensorFmt {
  enum class FloatFormat { Auto, Fixed, Scientific, None };
  PrintTensorFmt(unsigned summariseThreshold = 1000, unsigned edgeItems = 3,
                 unsigned maxLineWidth = 75, unsigned digits = 8,
                 FloatFormat floatFormat = FloatFormat::Auto, char separator = ' ',
                 char openBracket = '[', char closeBracket = ']')
      : summariseThreshold(summariseThreshold), edgeItems(edgeItems),
        maxLineWidth(maxLineWidth), digits(digits), floatFormat(floatFormat),
        separator(separator), openBracket(openBracket), closeBracket(closeBracket) {}
  static PrintTensorFmt disableFormatting() {
    return PrintTensorFmt(0, 0, 0, 8, FloatFormat::None);
  }
  unsigned summariseThreshold, edgeItems, maxLineWidth, digits;
  FloatFormat floatFormat;
  char separator, openBracket, closeBracket;
};

} // namespace poplar
