#include "AutoReport.hpp"

#include <poplar/ProfileData.hpp>
#include <poplar/exceptions.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "EngineState.hpp"

namespace poplar {

namespace {

// Options that ask for the report files (the emulator writes the same two for each).
const char *const kReportSwitches[] = {"autoReport.all", "autoReport.outputGraphProfile",
                                       "autoReport.outputExecutionProfile"};

bool reportRequested(const OptionFlags &options) {
  for (const char *key : kReportSwitches) {
    const auto it = options.find(key);
    if (it != options.end() && it->second == "true") return true;
  }
  return false;
}

std::string jsonString(const std::string &s) {
  std::ostringstream out;
  out << '"';
  for (const unsigned char c : s) {
    if (c == '"' || c == '\\') out << '\\' << c;
    else if (c == '\n') out << "\\n";
    else if (c < 0x20) out << "\\u" << std::hex << std::setw(4) << std::setfill('0') << unsigned(c) << std::dec;
    else out << c;
  }
  out << '"';
  return out.str();
}

template <class T> std::string jsonList(const std::vector<T> &values) {
  std::ostringstream out;
  out << '[';
  for (std::size_t i = 0; i < values.size(); ++i) out << (i ? ", " : "") << values[i];
  out << ']';
  return out.str();
}

std::string profileJson(const ProfileData &p, const std::string &summary) {
  std::ostringstream out;
  out << std::setprecision(17);
  const Target &t = p.target;
  out << "{\n \"target\": {\"arch\": " << jsonString(t.getTargetArchString()) << ", \"num_ipus\": " << t.getNumIPUs()
      << ", \"tiles_per_ipu\": " << t.getTilesPerIPU() << ", \"bytes_per_tile\": " << t.getBytesPerTile()
      << ", \"clock_hz\": " << t.getTileClockFrequency() << ", \"workers\": " << t.getNumWorkerContexts()
      << ", \"exchange_bytes_per_cycle\": " << t.getExchangeBytesPerCycle() << "},\n";
  out << " \"memory\": {\"variable_bytes\": " << jsonList(p.variableBytesPerTile)
      << ", \"constant_bytes\": " << jsonList(p.constantBytesPerTile)
      << ", \"always_live_bytes\": " << jsonList(p.alwaysLiveBytesPerTile)
      << ", \"kept_by_host_handles_bytes\": " << jsonList(p.keptByHostHandlesBytesPerTile)
      << ", \"peak_not_always_live_bytes\": " << jsonList(p.peakNotAlwaysLiveBytesPerTile)
      << ", \"peak_without_handles_bytes\": " << jsonList(p.peakWithoutHandlesBytesPerTile)
      << ", \"peak_step\": " << jsonList(p.peakStepPerTile)
      << ", \"peak_step_without_handles\": " << jsonList(p.peakStepWithoutHandlesPerTile)
      << ", \"bytes_per_tile\": " << t.getBytesPerTile() << ", \"variables\": {";
  for (std::size_t i = 0; i < p.variableBytes.size(); ++i)
    out << (i ? ", " : "") << jsonString(p.variableBytes[i].first) << ": " << p.variableBytes[i].second;
  out << "}},\n";
  out << " \"steps\": [";
  for (std::size_t i = 0; i < p.steps.size(); ++i) {
    const ProfileStep &s = p.steps[i];
    out << (i ? ",\n  " : "\n  ") << "{\"index\": " << i << ", \"kind\": " << jsonString(s.kind)
        << ", \"name\": " << jsonString(s.name) << ", \"executions\": " << s.executions
        << ", \"sync_cycles\": " << s.syncCycles << ", \"exchange_cycles\": " << s.exchangeCycles
        << ", \"compute_cycles\": " << s.computeCycles << ", \"exchange_bytes\": " << s.exchangeBytes
        << ", \"ipu_link_bytes\": " << s.ipuLinkBytes << ", \"host_seconds\": " << s.hostSeconds << "}";
  }
  out << "\n ],\n \"runs\": " << p.runs << ",\n \"elapsed_cycles\": " << p.elapsedCycles
      << ",\n \"host_timed\": " << (p.hostTimed ? "true" : "false")
      << ",\n \"num_variables\": " << p.numVariables << ",\n \"num_constants\": " << p.numConstants
      << ",\n \"num_compute_sets\": " << p.numComputeSets << ",\n \"num_programs\": " << p.numPrograms
      << ",\n \"summary_text\": " << jsonString(summary) << "\n}\n";
  return out.str();
}

void writeFile(const std::filesystem::path &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw poplar_error("autoReport: cannot write '" + path.string() + "'");
}

} // namespace

std::vector<std::string> writeProfileReport(const Engine &engine, const std::string &directory) {
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec) throw poplar_error("autoReport: cannot create the directory '" + directory + "': " + ec.message());
  std::ostringstream summary;
  try {
    engine.printProfileSummary(summary);
  } catch (const profiling_disabled &e) {
    // Profiling was off for every run (SDK programs disable it right after load): the
    // compilation report is still written, and the summary says why it has no runs.
    summary << e.what() << '\n';
  }
  const std::filesystem::path dir(directory);
  writeFile(dir / "profile_summary.txt", summary.str());
  writeFile(dir / "profile.json", profileJson(detail::getProfileData(engine), summary.str()));
  writeFile(dir / "profile.pop", detail::profileReportText(engine));
  detail::engineState(engine).reportWritten = true;
  return {(dir / "profile_summary.txt").string(), (dir / "profile.json").string(), (dir / "profile.pop").string()};
}

void detail::writeAutoReportIfRequested(const Engine &engine) noexcept {
  const EngineState &s = detail::engineState(engine);
  if (s.reportWritten || !reportRequested(s.options)) return;
  const auto it = s.options.find("autoReport.directory");
  try {
    writeProfileReport(engine, it == s.options.end() ? "." : it->second);
  } catch (const std::exception &e) {
    std::cerr << "poplar: " << e.what() << '\n';
  }
}

} // namespace poplar
