#pragma once
namespace poplar {

// What Graph::addCodelets is given. The emulator compiles C and C++ sources
// (Auto: by file extension) with the host compiler; it cannot run IPU assembly,
// IR or .gp objects.
enum class CodeletFileType { PreprocessedAsmSource, AsmSource, CSource, CppSource, IrSource, Object, Auto };

} // namespace poplar
