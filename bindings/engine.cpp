// poplar::Engine with numpy host buffers. The Python object keeps every buffer
// it was given alive for as long as the engine may touch it.
#include <poplar/Engine.hpp>
#include <poplar/exceptions.hpp>

#include <pybind11/functional.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <streambuf>
#include <string>
#include <utility>
#include <vector>

#include "backend.hpp"
#include "bindings.hpp"
#include "signals_pause_engine.hpp"

namespace popdsl_bindings {

namespace {

using poplar::Engine;
using poplar::StringRef;

// The bound Engine: a poplar::Engine plus the Python objects it depends on.
struct PyEngine {
  std::unique_ptr<Engine> engine;
  std::map<std::string, py::object> streamBuffers;
  std::map<std::string, poplar::DataStream> streams;
  std::map<std::string, backend::HostFunctionInfo> hostFunctions;
  std::map<std::string, poplar::RemoteBuffer> remoteBuffers;
  bool interfaceKnown = true; // false: made from an executable the backend cannot look into
  py::object printFile; // None: sys.stdout at each run

  Engine &get() { return *engine; }
};

py::array contiguousBuffer(py::handle obj, bool writeable, const char *what) {
  if (!py::isinstance<py::array>(obj))
    throw py::type_error(std::string(what) + ": expected a numpy array, got " +
                         std::string(py::str(py::type::handle_of(obj))));
  auto arr = py::reinterpret_borrow<py::array>(obj);
  if (!(arr.flags() & py::array::c_style))
    throw py::value_error(std::string(what) + ": the array must be C-contiguous");
  if (writeable && !arr.writeable()) throw py::value_error(std::string(what) + ": the array is read-only");
  // Device bytes written over object pointers would crash the interpreter, and object
  // pointers sent to the device would leak addresses: only plain numbers and bools.
  const char kind = arr.dtype().kind();
  if (kind != 'b' && kind != 'i' && kind != 'u' && kind != 'f')
    throw py::type_error(std::string(what) + ": the array's dtype " + std::string(py::str(arr.dtype())) +
                         " holds no device element type; use a numeric or bool array");
  return arr;
}

// Refuses a buffer whose dtype is not the numpy dtype of the handle's element type
// (callers skip a handle of unknown type, as on the sdk backend: it is checked by size only).
void checkHostDtype(const py::array &arr, const poplar::Type &type, const std::string &handle, const char *what) {
  if (!arr.dtype().is(numpyDtype(type)) && !arr.dtype().equal(numpyDtype(type)))
    throw py::type_error(std::string(what) + ": handle '" + handle + "' holds " + type.toString().str() +
                         " (numpy " + std::string(py::str(numpyDtype(type))) + "); the array's dtype is " +
                         std::string(py::str(arr.dtype())));
}

// The Engine writes a remote buffer's whole row through a bare pointer, so the array must
// be exactly one row of the buffer's element type. `described` stands in for a buffer the
// engine does not know (one made from an executable on the sdk backend).
void checkRemoteBuffer(const PyEngine &e, const py::array &arr, const std::string &handle, const char *what,
                       const std::optional<poplar::RemoteBuffer> &described) {
  if (described && described->handle() != handle)
    throw py::value_error(std::string(what) + ": buffer= describes '" + described->handle() + "', not '" + handle + "'");
  const auto it = e.remoteBuffers.find(handle);
  const poplar::RemoteBuffer *b = it != e.remoteBuffers.end() ? &it->second : described ? &*described : nullptr;
  if (!b)
    throw py::key_error(std::string(what) + ": no remote buffer with handle '" + handle + "'" +
                        (e.interfaceKnown ? "" : " that this engine knows of (an engine made from an executable on "
                                                 "the sdk backend cannot list them: pass buffer=)"));
  checkHostDtype(arr, b->elementType(), handle, what);
  if (static_cast<std::size_t>(arr.size()) != b->numElements())
    throw py::value_error(std::string(what) + ": a row of remote buffer '" + handle + "' has " +
                          std::to_string(b->numElements()) + " elements; the array has " + std::to_string(arr.size()));
}

// What a stream callback's buffer is: its element type and count and its direction.
struct StreamBuffer {
  poplar::Type type;
  std::size_t numElements;
  bool toDevice;
};

// Calls fn(buffer) for a stream: for host-to-device a fresh array the callback
// fills; for device-to-host a copy of the data the device sent.

class PyStreamCallback : public poplar::LegacyStreamCallback {
public:
  PyStreamCallback(py::function fn, StreamBuffer stream) : fn_(std::move(fn)), stream_(stream) {}
  ~PyStreamCallback() override {
    py::gil_scoped_acquire gil;
    fn_ = py::function();
  }
  void fetch(void *p) override {
    py::gil_scoped_acquire gil;
    const auto n = static_cast<py::ssize_t>(stream_.numElements);
    // An explicit shape: with a braced {n} the (handle, bool) object constructor
    // wins overload resolution and `arr` would be the dtype itself.
    py::array arr(numpyDtype(stream_.type), std::vector<py::ssize_t>{n});
    const auto bytes = static_cast<std::size_t>(arr.nbytes());
    const bool toDevice = stream_.toDevice;
    if (!toDevice) std::memcpy(arr.mutable_data(), p, bytes);
    py::object result = fn_(arr);
    if (toDevice) {
      if (!result.is_none()) arr[py::slice(0, n, 1)] = result;
      std::memcpy(p, arr.data(), bytes);
    }
  }

private:
  py::function fn_;
  StreamBuffer stream_;
};

// Calls fn(inputs, outputs) with fresh numpy arrays: copies of the inputs, and
// zeroed outputs whose contents go back to the engine when fn returns.
class PyHostCallback : public poplar::HostCallback {
public:
  PyHostCallback(py::function fn, backend::HostFunctionInfo info) : fn_(std::move(fn)), info_(std::move(info)) {}
  ~PyHostCallback() override {
    py::gil_scoped_acquire gil;
    fn_ = py::function();
  }
  void operator()(poplar::ArrayRef<const void *> ins, poplar::ArrayRef<void *> outs) override {
    py::gil_scoped_acquire gil;
    py::list inputs, outputs;
    for (std::size_t i = 0; i < ins.size(); ++i) {
      py::array a = fresh(info_.ins.at(i));
      std::memcpy(a.mutable_data(), ins[i], static_cast<std::size_t>(a.nbytes()));
      inputs.append(a);
    }
    std::vector<py::array> results;
    for (std::size_t i = 0; i < outs.size(); ++i) results.push_back(fresh(info_.outs.at(i)));
    for (const auto &a : results) outputs.append(a);
    fn_(inputs, outputs);
    // The arrays made here, not whatever the list holds now: their sizes are known.
    for (std::size_t i = 0; i < outs.size(); ++i)
      std::memcpy(outs[i], results[i].data(), static_cast<std::size_t>(results[i].nbytes()));
  }

private:
  static py::array fresh(const poplar::HostFunctionArgument &arg) {
    py::array a(numpyDtype(std::get<0>(arg)), std::vector<py::ssize_t>{static_cast<py::ssize_t>(std::get<1>(arg))});
    std::memset(a.mutable_data(), 0, static_cast<std::size_t>(a.nbytes()));
    return a;
  }
  py::function fn_;
  backend::HostFunctionInfo info_;
};

// PrintTensor output for a Python file object. The engine writes each print as
// one string and flushes it, with the GIL released; each flush hands the text to
// file.write(). Not pybind11's pythonbuf: an exception from write() escapes its
// destructor (std::terminate). Here the first one is kept for rethrowIfFailed()
// to raise after the run, and later output is dropped.
class PyFileBuf : public std::streambuf {
public:
  explicit PyFileBuf(const py::object &file) : write_(file.attr("write")), flush_(file.attr("flush")) {}
  void rethrowIfFailed() {
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

protected:
  int_type overflow(int_type c) override {
    if (!traits_type::eq_int_type(c, traits_type::eof())) text_ += traits_type::to_char_type(c);
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char *s, std::streamsize n) override {
    text_.append(s, static_cast<std::size_t>(n));
    return n;
  }
  int sync() override {
    if (text_.empty()) return 0;
    py::gil_scoped_acquire gil;
    if (!error_) try {
        write_(py::bytes(text_).attr("decode")("utf-8", "replace"));
        flush_();
      } catch (...) {
        error_ = std::current_exception();
      }
    text_.clear();
    return 0;
  }

private:
  py::object write_, flush_;
  std::string text_;
  std::exception_ptr error_;
};

// Runs fn with the GIL released and PrintTensor output going to the engine's
// Python file (sys.stdout, looked up now, by default). The stream only lives for
// this call, so the engine is pointed back at std::cerr before it goes away.
// Signals with Python handlers pause the run for them (Ctrl-C: KeyboardInterrupt ends it).
template <class Fn> void runPrinting(PyEngine &e, Fn fn) {
  py::object file = e.printFile.is_none() ? py::module_::import("sys").attr("stdout") : e.printFile;
  PyFileBuf buffer(file);
  std::ostream os(&buffer);
  e.get().setPrintTensorStream(os);
  struct RestoreDefault {
    Engine &engine;
    ~RestoreDefault() { engine.setPrintTensorStream(std::cerr); }
  } restore{e.get()};
  SignalsPauseEngine signals(e.get());
  {
    py::gil_scoped_release release;
    fn();
  }
  os.flush();
  buffer.rethrowIfFailed();
  signals.rethrow();
}

// What the buffer of stream `handle` is: from the engine's graph, else from `stream`
// (poplar.Type, numElements, toDevice) where the engine cannot look into its executable.
StreamBuffer streamBuffer(const PyEngine &e, const std::string &handle, const py::object &stream, const char *what) {
  auto it = e.streams.find(handle);
  if (it != e.streams.end())
    return {it->second.elementType(), it->second.numElements(),
            it->second.type() == poplar::DataStreamType::HostToDeviceFIFO};
  if (!stream.is_none()) {
    auto described = stream.cast<std::tuple<poplar::Type, std::size_t, bool>>();
    return {std::get<0>(described), std::get<1>(described), std::get<2>(described)};
  }
  if (!e.interfaceKnown)
    throw backend::NeedsEmulatorBackend(std::string("Engine.") + what + " without stream=(type, numElements, "
                                        "toDevice) on an engine made from an Executable");
  throw poplar::stream_connection_error(std::string("Engine::") + what + ": no stream with handle '" + handle + "'");
}

// Connects `callback` to stream `handle` of every replica, or of replica *replicaIndex.
void connectCallback(PyEngine &e, const std::string &handle, std::unique_ptr<poplar::StreamCallback> callback,
                     const unsigned *replicaIndex) {
  if (replicaIndex) e.get().connectStreamToCallback(handle, *replicaIndex, std::move(callback));
  else e.get().connectStreamToCallback(handle, std::move(callback));
  e.streamBuffers.erase(handle);
}

void connectStreamToCallback(PyEngine &e, const std::string &handle, py::function fn, py::object stream,
                             const unsigned *replicaIndex) {
  const StreamBuffer buffer = streamBuffer(e, handle, stream, "connectStreamToCallback");
  connectCallback(e, handle, std::unique_ptr<poplar::StreamCallback>(new PyStreamCallback(fn, buffer)), replicaIndex);
}

// The rows of one run of a stream, moved in bulk: read in order from a numpy array
// (host to device) or appended to a numpy array that take() hands over (device to host;
// numpy's allocator asks for huge pages, which a fresh 100 MB buffer faults in 500 times
// faster than in 4 KB pages). A copy is one memcpy, with no Python call: Python is called
// only when a host-to-device copy finds no row left (to raise the caller's error) and when
// the rows written outgrow their array (a bigger one, twice the rows).
struct StreamRows {
  StreamBuffer stream;
  std::size_t rowBytes = 0;
  std::size_t count = 0;    // the rows copied so far
  std::size_t capacity = 0; // the rows `rows` holds
  std::uint8_t *data = nullptr; // the array's first row
  py::object rows, exhausted;   // the array; what raises when a feed runs out

  ~StreamRows() {
    py::gil_scoped_acquire gil;
    rows = py::object();
    exhausted = py::object();
  }

  void copy(void *p) {
    if (stream.toDevice) {
      if (count == capacity) {
        {
          py::gil_scoped_acquire gil;
          exhausted(); // raises (error_already_set)
        }
        throw poplar::stream_connection_error("a stream read found no row left in its array");
      }
      std::memcpy(p, data + count * rowBytes, rowBytes);
    } else {
      if (count == capacity) {
        py::gil_scoped_acquire gil;
        allocate(std::max<std::size_t>(2 * capacity, 16));
      }
      std::memcpy(data + count * rowBytes, p, rowBytes);
    }
    ++count;
  }

  // Room for `n` rows written, keeping those written so far (needs the GIL).
  void allocate(std::size_t n) {
    py::array bigger(numpyDtype(stream.type), std::vector<py::ssize_t>{static_cast<py::ssize_t>(n * stream.numElements)});
    auto *to = static_cast<std::uint8_t *>(bigger.mutable_data());
    if (count) std::memcpy(to, data, count * rowBytes);
    rows = bigger;
    data = to;
    capacity = n;
  }

  // The rows written so far as a flat numpy array the caller then owns; the next start afresh.
  py::array take() {
    if (stream.toDevice) throw py::value_error("StreamRows.take: a host-to-device stream's rows are the caller's");
    const auto n = static_cast<py::ssize_t>(count * stream.numElements);
    py::array all = rows.is_none() ? py::array(numpyDtype(stream.type), std::vector<py::ssize_t>{0})
                                   : py::reinterpret_borrow<py::array>(rows);
    // A slice when fewer rows came than there was room for (a view keeping the whole array).
    py::array result = count == capacity ? all : py::reinterpret_borrow<py::array>(all[py::slice(0, n, 1)]);
    rows = py::none();
    data = nullptr;
    count = capacity = 0;
    return result;
  }
};

class StreamRowsCallback : public poplar::LegacyStreamCallback {
public:
  explicit StreamRowsCallback(std::shared_ptr<StreamRows> rows) : rows_(std::move(rows)) {}
  void fetch(void *p) override { rows_->copy(p); }

private:
  std::shared_ptr<StreamRows> rows_;
};

std::shared_ptr<StreamRows> connectStreamRows(PyEngine &e, const std::string &handle, const py::object &array,
                                              const py::object &exhausted, const py::object &stream,
                                              std::size_t expected, const unsigned *replicaIndex) {
  const bool feeding = !array.is_none();
  const char *what = feeding ? "feedStream" : "collectStream";
  auto rows = std::make_shared<StreamRows>();
  rows->stream = streamBuffer(e, handle, stream, what);
  rows->rowBytes = rows->stream.numElements * static_cast<std::size_t>(numpyDtype(rows->stream.type).itemsize());
  if (rows->stream.toDevice != feeding)
    throw py::value_error(std::string("Engine.") + what + ": stream '" + handle + "' is " +
                          (rows->stream.toDevice ? "host-to-device: feed it with feedStream"
                                                 : "device-to-host: collect it with collectStream"));
  if (feeding) {
    py::array arr = contiguousBuffer(array, false, what);
    checkHostDtype(arr, rows->stream.type, handle, what);
    const auto bytes = static_cast<std::size_t>(arr.nbytes());
    if (rows->rowBytes == 0 || bytes % rows->rowBytes)
      throw py::value_error(std::string("Engine.feedStream: a row of stream '") + handle + "' has " +
                            std::to_string(rows->stream.numElements) + " elements; the array's " +
                            std::to_string(arr.size()) + " are not whole rows");
    // Only read: the engine copies from it, never into it.
    rows->data = static_cast<std::uint8_t *>(const_cast<void *>(arr.data()));
    rows->capacity = bytes / rows->rowBytes;
    rows->rows = arr;
    rows->exhausted = exhausted;
  } else {
    rows->rows = py::none();
    if (expected) rows->allocate(expected);
  }
  connectCallback(e, handle, std::unique_ptr<poplar::StreamCallback>(new StreamRowsCallback(rows)), replicaIndex);
  return rows;
}
} // namespace

void bindEngine(py::module_ &m) {
  recordMainThread(); // modules are imported on Python's main thread
  using poplar::Graph;
  using poplar::OptionFlags;
  using poplar::program::Program;

  py::class_<poplar::RuntimeOptions>(m, "RuntimeOptions",
                                     "Options of one run: the streamCallbacks.* and target.sync* keys")
      .def(py::init<const OptionFlags &>(), py::arg("flags"));

  py::class_<StreamRows, std::shared_ptr<StreamRows>>(m, "StreamRows",
                                                       "The rows of a stream that Engine.feedStream or "
                                                       "collectStream connected")
      .def_property_readonly("count", [](const StreamRows &r) { return r.count; },
                             "The rows copied so far (since take(), for a device-to-host stream)")
      .def("take", &StreamRows::take,
           "A device-to-host stream's rows so far, flat (count * numElements), without a copy; the "
           "buffer starts empty again");

  py::class_<PyEngine> engine(m, "Engine");
  py::class_<Engine::TimerTimePoint>(engine, "TimerTimePoint", "A time stamp of Engine.getTimeStamp()");
  engine.def(py::init([](const Graph &g, py::object progs, const OptionFlags &options, py::object progress) {
             auto e = std::make_unique<PyEngine>();
             e->engine = std::make_unique<Engine>(g, programList(progs, "Engine"), options, progressFunction(progress));
             py::object self = py::cast(&g, py::return_value_policy::reference);
             if (py::hasattr(self, "_streams"))
               for (auto kv : self.attr("_streams").cast<py::dict>())
                 e->streams[kv.first.cast<std::string>()] = kv.second.cast<poplar::DataStream>();
             if (py::hasattr(self, "_hostFunctions"))
               for (auto kv : self.attr("_hostFunctions").cast<py::dict>()) {
                 auto args = kv.second.cast<std::pair<std::vector<poplar::HostFunctionArgument>,
                                                      std::vector<poplar::HostFunctionArgument>>>();
                 e->hostFunctions[kv.first.cast<std::string>()] = {kv.first.cast<std::string>(), args.first, args.second};
               }
             if (py::hasattr(self, "_remoteBuffers"))
               for (auto kv : self.attr("_remoteBuffers").cast<py::dict>())
                 e->remoteBuffers[kv.first.cast<std::string>()] = kv.second.cast<poplar::RemoteBuffer>();
             e->printFile = py::none();
             return e;
           }),
           py::arg("graph"), py::arg("programs"), py::arg("options") = OptionFlags(),
           py::arg("progress") = py::none(),
           "Compiles a graph with one program or a list of programs (run by index)")
      .def(py::init([](const poplar::Executable &exe, const OptionFlags &options, py::object progress) {
             auto e = std::make_unique<PyEngine>();
             e->engine = std::make_unique<Engine>(backend::makeEngine(exe, options, progressFunction(progress)));
             backend::ExecutableInterface interface = backend::executableInterface(exe);
             e->interfaceKnown = interface.available;
             for (const auto &s : interface.streams) e->streams[s.handle()] = s;
             for (auto &f : interface.hostFunctions) e->hostFunctions[f.handle] = f;
             for (const auto &b : interface.remoteBuffers) e->remoteBuffers[b.handle()] = b;
             e->printFile = py::none();
             return e;
           }),
           py::arg("executable"), py::arg("options") = OptionFlags(), py::arg("progress") = py::none(),
           "An engine for a compiled (or deserialized) executable")
      .def("load", [](PyEngine &e, const poplar::Device &d) { e.get().load(d); }, py::arg("device"))
      .def("prepare", [](PyEngine &e, const poplar::Device &d) { e.get().prepare(d); }, py::arg("device"))
      .def("prepare",
           [](PyEngine &e, const poplar::Device &d, const poplar::RuntimeOptions &o) { e.get().prepare(d, o); },
           py::arg("device"), py::arg("runtimeOptions"))
      // A dict is checked here, so a bad key raises invalid_option rather than a TypeError.
      .def("prepare",
           [](PyEngine &e, const poplar::Device &d, const OptionFlags &o) {
             e.get().prepare(d, poplar::RuntimeOptions(o));
           },
           py::arg("device"), py::arg("runtimeOptions"))
      .def("deploy", [](PyEngine &e) { e.get().deploy(); })
      .def("stop", [](PyEngine &e) { e.get().stop(); },
           "Ends the run in progress at its next step or loop iteration (from another thread, a stream "
           "callback or a host function)")
      .def("run",
           [](PyEngine &e, unsigned prog, const std::string &name) {
             runPrinting(e, [&] { e.get().run(prog, name); });
           },
           py::arg("prog") = 0, py::arg("debugName") = "")
      .def("run",
           [](PyEngine &e, unsigned prog, const std::string &name, const poplar::RuntimeOptions &o) {
             runPrinting(e, [&] { e.get().run(prog, name, o); });
           },
           py::arg("prog"), py::arg("debugName"), py::arg("runtimeOptions"))
      .def("run",
           [](PyEngine &e, unsigned prog, const std::string &name, const OptionFlags &o) {
             const poplar::RuntimeOptions options(o);
             runPrinting(e, [&] { e.get().run(prog, name, options); });
           },
           py::arg("prog"), py::arg("debugName"), py::arg("runtimeOptions"))
      .def("loadAndRun",
           [](PyEngine &e, const poplar::Device &d, unsigned prog) {
             e.get().load(d);
             runPrinting(e, [&] { e.get().run(prog); });
           },
           py::arg("device"), py::arg("prog") = 0)
      .def("writeTensor",
           [](PyEngine &e, const std::string &handle, py::handle data) {
             py::array arr = contiguousBuffer(data, false, "writeTensor");
             if (const auto tensor = backend::hostTensor(e.get(), handle, false))
               checkHostDtype(arr, tensor->type, handle, "writeTensor");
             const char *p = static_cast<const char *>(arr.data());
             e.get().writeTensor(handle, p, p + arr.nbytes());
           },
           py::arg("handle"), py::arg("buffer"), "Writes a C-contiguous numpy array (raw bytes) to a host-write handle")
      .def("readTensor",
           [](PyEngine &e, const std::string &handle, py::handle out) {
             py::array arr = contiguousBuffer(out, true, "readTensor");
             if (const auto tensor = backend::hostTensor(e.get(), handle, true))
               checkHostDtype(arr, tensor->type, handle, "readTensor");
             char *p = static_cast<char *>(arr.mutable_data());
             e.get().readTensor(handle, p, p + arr.nbytes());
             return arr;
           },
           py::arg("handle"), py::arg("buffer"), "Reads a host-read handle into a writeable C-contiguous numpy array")
      .def("_hostTensor",
           [](PyEngine &e, const std::string &handle, bool read) -> py::object {
             const auto tensor = backend::hostTensor(e.get(), handle, read);
             if (!tensor) return py::none();
             return py::make_tuple(tensor->type, tensor->numElements);
           },
           py::arg("handle"), py::arg("read"),
           "Emulator: (element type, number of elements) of a host read (read=True) or write handle; None "
           "when there is no such handle (always on the sdk backend, whose Engine does not say)")
      .def("copyToRemoteBuffer",
           [](PyEngine &e, py::handle src, const std::string &handle, std::uint64_t repeatIndex,
              unsigned replicationIndex, const std::optional<poplar::RemoteBuffer> &buffer) {
             py::array arr = contiguousBuffer(src, false, "copyToRemoteBuffer");
             checkRemoteBuffer(e, arr, handle, "copyToRemoteBuffer", buffer);
             e.get().copyToRemoteBuffer(const_cast<void *>(arr.data()), handle, repeatIndex, replicationIndex);
           },
           py::arg("src"), py::arg("handle"), py::arg("repeatIndex"), py::arg("replicationIndex") = 0,
           py::arg("buffer") = py::none(),
           "Writes one row of a remote buffer from a C-contiguous numpy array of the row's size; buffer= "
           "describes the buffer where the engine cannot (made from an executable on the sdk backend)")
      .def("copyFromRemoteBuffer",
           [](PyEngine &e, const std::string &handle, py::handle dst, std::uint64_t repeatIndex,
              unsigned replicationIndex, const std::optional<poplar::RemoteBuffer> &buffer) {
             py::array arr = contiguousBuffer(dst, true, "copyFromRemoteBuffer");
             checkRemoteBuffer(e, arr, handle, "copyFromRemoteBuffer", buffer);
             e.get().copyFromRemoteBuffer(handle, arr.mutable_data(), repeatIndex, replicationIndex);
             return arr;
           },
           py::arg("handle"), py::arg("dst"), py::arg("repeatIndex"), py::arg("replicationIndex") = 0,
           py::arg("buffer") = py::none(),
           "Reads one row of a remote buffer into a writeable C-contiguous numpy array of the row's size; "
           "buffer= as for copyToRemoteBuffer")
      .def("connectStream",
           [](PyEngine &e, const std::string &handle, py::handle data) {
             py::array arr = contiguousBuffer(data, true, "connectStream");
             const auto stream = e.streams.find(handle);
             if (stream != e.streams.end())
               checkHostDtype(arr, stream->second.elementType(), handle, "connectStream");
             char *p = static_cast<char *>(arr.mutable_data());
             e.get().connectStream(handle, p, p + arr.nbytes());
             e.streamBuffers[handle] = arr;
           },
           py::arg("handle"), py::arg("buffer"),
           "Connects a numpy array as a circular buffer: each copy uses the next elements, wrapping")
      .def("connectStreamToCallback",
           [](PyEngine &e, const std::string &handle, py::function fn, py::object stream) {
             connectStreamToCallback(e, handle, fn, stream, nullptr);
           },
           py::arg("handle"), py::arg("callback"), py::arg("stream") = py::none(),
           "callback(array): host-to-device fills the array (or returns the data); device-to-host receives a copy. "
           "stream=(poplar.Type, numElements, toDevice) describes the buffer where the engine cannot (an engine "
           "made from an Executable on the sdk backend). Connected for every replica: called for each replica's "
           "copies (a BROADCAST stream's only for replica 0's, which every replica receives)")
      .def("connectStreamToCallback",
           [](PyEngine &e, const std::string &handle, unsigned replicaIndex, py::function fn, py::object stream) {
             connectStreamToCallback(e, handle, fn, stream, &replicaIndex);
           },
           py::arg("handle"), py::arg("replicaIndex"), py::arg("callback"), py::arg("stream") = py::none(),
           "As connectStreamToCallback(handle, callback), for the copies of replica replicaIndex only")
      .def("feedStream",
           [](PyEngine &e, const std::string &handle, py::object rows, py::object exhausted,
              std::optional<unsigned> replicaIndex, py::object stream) {
             return connectStreamRows(e, handle, rows, exhausted, stream, 0, replicaIndex ? &*replicaIndex : nullptr);
           },
           py::arg("handle"), py::arg("rows"), py::arg("exhausted"), py::arg("replicaIndex") = py::none(),
           py::arg("stream") = py::none(),
           "popdsl: each copy from host-to-device stream `handle` takes the next row of `rows` (a C-contiguous "
           "array of the stream's dtype, whole rows), with no Python call; a copy that finds none left calls "
           "exhausted(), which raises. For every replica, or replica replicaIndex only (as "
           "connectStreamToCallback). Returns the StreamRows that counts the rows read")
      .def("collectStream",
           [](PyEngine &e, const std::string &handle, std::optional<unsigned> replicaIndex, py::object stream,
              std::size_t expected) {
             return connectStreamRows(e, handle, py::none(), py::none(), stream, expected,
                                      replicaIndex ? &*replicaIndex : nullptr);
           },
           py::arg("handle"), py::arg("replicaIndex") = py::none(), py::arg("stream") = py::none(),
           py::arg("expected") = 0,
           "popdsl: each copy to device-to-host stream `handle` appends a row to a host buffer (room made for "
           "`expected` rows), with no Python call; StreamRows.take() returns them. For every replica, or "
           "replica replicaIndex only")
      .def("connectHostFunction",
           [](PyEngine &e, const std::string &handle, unsigned replicaIndex, py::function fn, py::object arguments) {
             backend::HostFunctionInfo info;
             auto it = e.hostFunctions.find(handle);
             if (it != e.hostFunctions.end()) {
               info = it->second;
             } else if (!arguments.is_none()) {
               auto described = arguments.cast<std::pair<std::vector<poplar::HostFunctionArgument>,
                                                         std::vector<poplar::HostFunctionArgument>>>();
               info = {handle, described.first, described.second};
             } else if (!e.interfaceKnown) {
               throw backend::NeedsEmulatorBackend("Engine.connectHostFunction without arguments=(ins, outs) on an "
                                                   "engine made from an Executable");
             } else {
               throw poplar::stream_connection_error("Engine::connectHostFunction: no host function with handle '" +
                                                     handle + "'");
             }
             e.get().connectHostFunction(handle, replicaIndex,
                                         std::unique_ptr<poplar::HostCallback>(new PyHostCallback(fn, info)));
           },
           py::arg("handle"), py::arg("replicaIndex"), py::arg("callback"), py::arg("arguments") = py::none(),
           "callback(inputs, outputs): numpy arrays (flat, one per argument); write the results into outputs. "
           "arguments=(ins, outs), lists of (poplar.Type, numElements), describes them where the engine cannot "
           "(an engine made from an Executable on the sdk backend)")
      .def("setRandomSeed", [](PyEngine &e, std::uint64_t seed) { backend::setRandomSeed(e.get(), seed); }, py::arg("seed"))
      .def("getRandomSeed", [](PyEngine &e) { return backend::getRandomSeed(e.get()); })
      .def("listStreams", [](PyEngine &e) { return e.get().listStreams(); })
      .def("setPrintTensorStream", [](PyEngine &e, py::object file) { e.printFile = file; }, py::arg("file"),
           "A Python file object for PrintTensor output (default: sys.stdout at each run)")
      .def("getEngineOptions", [](PyEngine &e) { return e.get().getEngineOptions(); })
      .def("printProfileSummary",
           [](PyEngine &e, py::object file, const OptionFlags &options) {
             std::ostringstream text;
             e.get().printProfileSummary(text, options);
             file.attr("write")(text.str());
           },
           py::arg("out"), py::arg("opt") = OptionFlags(),
           "Writes the profile summary to a Python file object (e.g. sys.stdout); cycles are estimated")
      .def("resetExecutionProfile", [](PyEngine &e) { e.get().resetExecutionProfile(); })
      .def("disableExecutionProfiling", [](PyEngine &e) { e.get().disableExecutionProfiling(); })
      .def("enableExecutionProfiling", [](PyEngine &e) { e.get().enableExecutionProfiling(); })
      .def("getTimeStamp", [](PyEngine &e) { return e.get().getTimeStamp(); })
      .def("reportTiming",
           [](PyEngine &e, const Engine::TimerTimePoint &start, const Engine::TimerTimePoint &end) {
             return e.get().reportTiming(start, end);
           },
           py::arg("start"), py::arg("end"))
      .def("getProfileData", [](PyEngine &e) { return backend::profileData(e.get()); },
           "Emulator only: the recorded profile as a dict (cycles estimated)")
      .def("writeProfileReport", [](PyEngine &e, const std::string &directory) {
             return backend::writeProfileReport(e.get(), directory);
           }, py::arg("directory"),
           "Emulator only: writes profile_summary.txt and profile.json now (not again when the engine is "
           "destroyed); returns the paths")
      .def("getReport",
           [](PyEngine &e, bool reportExecution) {
             const std::string text = backend::profileReportText(e.get());
             return py::module_::import("pva.report")
                 .attr("_report_from_bytes")(py::bytes(text), "the report of Engine.getReport", reportExecution);
           },
           py::arg("reportExecution") = true,
           "libpva's report of the engine (a pva.Report), as Engine::getReport gives it in C++; cycles are "
           "estimated")
      ;
}

} // namespace popdsl_bindings
