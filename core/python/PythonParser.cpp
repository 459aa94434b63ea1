// SPDX-License-Identifier: MIT
// The one file that talks to CPython. Every PyObject* is owned by a PyRef; the
// interpreter's lock is held only inside parsePython.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "PythonParser.h"

#include <algorithm>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) // clang's spelling of GCC's __SANITIZE_ADDRESS__
#define SPLITSCOPE_ADDRESS_SANITIZER 1
#endif
#endif

namespace splitscope::python {

namespace {

// An owned (new) reference, released when it goes out of scope.
struct Decref {
    void operator()(PyObject *object) const { Py_DECREF(object); }
};
using PyRef = std::unique_ptr<PyObject, Decref>;

PyRef borrowed(PyObject *object)
{
    Py_XINCREF(object);
    return PyRef(object);
}

// The interpreter, started once. Its objects live as long as the process.
struct Runtime {
    std::string error; // why it could not start
    PyObject *astBase = nullptr;      // _ast.AST
    PyObject *decodeSource = nullptr; // importlib.util.decode_source: bytes -> str as the tokenizer decodes them
    PyObject *fieldsName = nullptr;   // "_fields"
    PyObject *attributesName = nullptr;
    PyObject *positionNames[4] = {};  // lineno, col_offset, end_lineno, end_col_offset
};

std::string statusMessage(const PyStatus &status)
{
    std::string out = status.err_msg ? status.err_msg : "unknown error";
    if (status.func)
        out = std::string(status.func) + ": " + out;
    return out;
}

Runtime start()
{
    Runtime rt;
    if (!Py_IsInitialized()) {
#if defined(__SANITIZE_ADDRESS__) || defined(SPLITSCOPE_ADDRESS_SANITIZER)
        // Under AddressSanitizer every object comes from malloc, so that LeakSanitizer sees
        // the references held inside Python's own memory (pymalloc's arenas are mmap'd and
        // not scanned: everything they point to would look leaked).
        PyPreConfig preconfig;
        PyPreConfig_InitIsolatedConfig(&preconfig);
        preconfig.allocator = PYMEM_ALLOCATOR_MALLOC;
        const PyStatus pre = Py_PreInitialize(&preconfig);
        if (PyStatus_Exception(pre)) {
            rt.error = statusMessage(pre);
            return rt;
        }
#endif
        PyConfig config;
        PyConfig_InitIsolatedConfig(&config);
        config.site_import = 0;           // the standard library only: no site or user packages
        config.install_signal_handlers = 0;
        config.write_bytecode = 0;
        PyStatus status = PyConfig_SetBytesString(&config, &config.home, SPLITSCOPE_PYTHON_HOME);
        if (!PyStatus_Exception(status))
            status = PyWideStringList_Append(&config.warnoptions, L"ignore"); // SyntaxWarnings are not ours to print
        if (!PyStatus_Exception(status))
            status = Py_InitializeFromConfig(&config);
        PyConfig_Clear(&config);
        if (PyStatus_Exception(status)) {
            rt.error = statusMessage(status);
            return rt;
        }
    } else {
        // Someone else's interpreter: take its lock like any other thread.
        PyGILState_Ensure();
    }
    PyRef ast(PyImport_ImportModule("_ast"));
    PyRef util(PyImport_ImportModule("importlib.util"));
    rt.astBase = ast ? PyObject_GetAttrString(ast.get(), "AST") : nullptr;
    rt.decodeSource = util ? PyObject_GetAttrString(util.get(), "decode_source") : nullptr;
    rt.fieldsName = PyUnicode_InternFromString("_fields");
    rt.attributesName = PyUnicode_InternFromString("_attributes");
    const char *const positions[4] = {"lineno", "col_offset", "end_lineno", "end_col_offset"};
    for (int i = 0; i < 4; ++i)
        rt.positionNames[i] = PyUnicode_InternFromString(positions[i]);
    if (!rt.astBase || !rt.decodeSource) {
        PyErr_Clear();
        rt.error = "the standard library's _ast or importlib.util module is missing (at " SPLITSCOPE_PYTHON_HOME ")";
    }
    PyEval_SaveThread(); // every parse takes the lock itself
    return rt;
}

Runtime &runtime()
{
    static Runtime rt = start(); // thread-safe, once
    return rt;
}

// UTF-8 of a str; lone surrogates as \uXXXX escapes.
std::string utf8(PyObject *text)
{
    Py_ssize_t size = 0;
    if (const char *data = PyUnicode_AsUTF8AndSize(text, &size))
        return std::string(data, static_cast<std::size_t>(size));
    PyErr_Clear();
    PyRef bytes(PyUnicode_AsEncodedString(text, "utf-8", "backslashreplace"));
    if (!bytes) {
        PyErr_Clear();
        return {};
    }
    return std::string(PyBytes_AS_STRING(bytes.get()), static_cast<std::size_t>(PyBytes_GET_SIZE(bytes.get())));
}

std::string stringOf(PyObject *object, bool repr)
{
    PyRef text(repr ? PyObject_Repr(object) : PyObject_Str(object));
    if (!text) {
        PyErr_Clear(); // an int past CPython's digit limit, for example
        return {};
    }
    return utf8(text.get());
}

// The pending exception as a message and a position, and cleared.
void takeError(ParsedSource &out)
{
    PyObject *type = nullptr;
    PyObject *value = nullptr;
    PyObject *traceback = nullptr;
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
    PyRef typeRef(type), valueRef(value), tracebackRef(traceback);
    const std::string typeName = type ? reinterpret_cast<PyTypeObject *>(type)->tp_name : "error";
    if (type && PyErr_GivenExceptionMatches(type, PyExc_SyntaxError) && value) {
        PyRef message(PyObject_GetAttrString(value, "msg"));
        PyRef line(PyObject_GetAttrString(value, "lineno"));
        PyRef offset(PyObject_GetAttrString(value, "offset"));
        PyErr_Clear();
        out.error = message && PyUnicode_Check(message.get()) ? utf8(message.get()) : std::string("invalid syntax");
        if (typeName != "SyntaxError")
            out.error = typeName + ": " + out.error; // IndentationError, TabError
        // A decoding error has no place (line 0, offset -1): both 0, "unknown".
        out.line = line && PyLong_Check(line.get()) ? std::max(0, static_cast<int>(PyLong_AsLong(line.get()))) : 0;
        out.column = out.line > 0 && offset && PyLong_Check(offset.get())
            ? std::max(0, static_cast<int>(PyLong_AsLong(offset.get())))
            : 0;
        PyErr_Clear();
        return;
    }
    std::string text = value ? stringOf(value, false) : std::string();
    if (type && PyErr_GivenExceptionMatches(type, PyExc_MemoryError) && text.empty())
        text = "CPython's parser gave up (the code nests too deeply for it, or memory ran out)";
    out.error = typeName + (text.empty() ? "" : ": " + text);
}

// Copies CPython's tree into `tree`, in pre-order, without recursion.
class Converter {
public:
    Converter(const Runtime &rt, AstTree &tree) : m_rt(rt), m_tree(tree) {}

    bool convert(PyObject *root)
    {
        if (add(root, kNoNode) == kNoNode)
            return false;
        while (!m_pending.empty()) {
            const Pending p = std::move(m_pending.back());
            m_pending.pop_back();
            const NodeId id = add(p.object.get(), p.parent);
            if (id == kNoNode)
                return false;
            m_tree.setChild(p.slot, id);
        }
        // A subtree ends where its last child's does; children come after their parent.
        for (NodeId id = static_cast<NodeId>(m_tree.size()) - 1; id > 0; --id) {
            AstNode &parent = m_tree.mutableNode(m_tree.node(id).parent);
            parent.end = std::max(parent.end, m_tree.node(id).end);
        }
        return true;
    }

private:
    struct Pending {
        PyRef object;
        NodeId parent;
        std::uint32_t slot; // of the parent's children
    };
    struct TypeInfo {
        std::string_view name;
        std::vector<std::pair<std::string_view, PyRef>> fields;
        bool positioned = false;
    };

    const TypeInfo &info(PyTypeObject *type)
    {
        auto it = m_types.find(type);
        if (it != m_types.end())
            return it->second;
        TypeInfo info;
        info.name = m_tree.intern(type->tp_name);
        PyRef fields(PyObject_GetAttr(reinterpret_cast<PyObject *>(type), m_rt.fieldsName));
        if (fields && PyTuple_Check(fields.get())) {
            for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(fields.get()); ++i) {
                PyObject *name = PyTuple_GET_ITEM(fields.get(), i);
                info.fields.emplace_back(m_tree.intern(utf8(name)), borrowed(name));
            }
        }
        PyRef attributes(PyObject_GetAttr(reinterpret_cast<PyObject *>(type), m_rt.attributesName));
        info.positioned = attributes && PyTuple_Check(attributes.get()) && PyTuple_GET_SIZE(attributes.get()) == 4;
        PyErr_Clear();
        return m_types.emplace(type, std::move(info)).first->second;
    }

    int position(PyObject *node, int which)
    {
        PyRef value(PyObject_GetAttr(node, m_rt.positionNames[which]));
        if (!value || !PyLong_Check(value.get())) {
            PyErr_Clear();
            return -1;
        }
        return static_cast<int>(PyLong_AsLong(value.get()));
    }

    NodeId addLeaf(PyObject *object, NodeId parent)
    {
        const char *type = "object";
        std::string text;
        if (PyUnicode_Check(object)) {
            type = "str";
            text = utf8(object);
        } else if (PyBool_Check(object)) {
            type = "bool";
            text = object == Py_True ? "True" : "False";
        } else if (PyLong_Check(object)) {
            type = "int";
            text = stringOf(object, false);
        } else if (PyFloat_Check(object) || PyComplex_Check(object)) {
            type = PyFloat_Check(object) ? "float" : "complex";
            text = stringOf(object, true);
        } else if (PyBytes_Check(object)) {
            type = "bytes";
        } else if (object == Py_Ellipsis) {
            type = "Ellipsis";
        }
        const NodeId id = m_tree.addNode(m_tree.intern(type), parent);
        m_tree.mutableNode(id).text = std::move(text);
        return id;
    }

    NodeId add(PyObject *object, NodeId parent)
    {
        const int isNode = PyObject_IsInstance(object, m_rt.astBase);
        if (isNode < 0)
            return kNoNode;
        if (!isNode)
            return addLeaf(object, parent);
        const TypeInfo &type = info(Py_TYPE(object));
        const NodeId id = m_tree.addNode(type.name, parent);
        if (type.positioned) {
            AstNode &n = m_tree.mutableNode(id);
            n.line = position(object, 0);
            n.endLine = position(object, 2);
            const int column = position(object, 1);
            const int endColumn = position(object, 3);
            n.column = n.line > 0 && column >= 0 ? m_tree.characterColumn(n.line, column) : 0;
            n.endColumn = n.endLine > 0 && endColumn >= 0 ? m_tree.characterColumn(n.endLine, endColumn) : 0;
            n.line = std::max(n.line, 0);
            n.endLine = std::max(n.endLine, 0);
        }
        const std::size_t firstChild = m_pending.size();
        for (const auto &[name, pyName] : type.fields) {
            PyRef value(PyObject_GetAttr(object, pyName.get()));
            if (!value)
                PyErr_Clear(); // an optional field never set
            if (!value || value.get() == Py_None) {
                m_tree.addField(name, 0);
            } else if (PyList_Check(value.get())) {
                const Py_ssize_t count = PyList_GET_SIZE(value.get());
                const std::uint32_t slot = m_tree.addField(name, static_cast<std::uint32_t>(count));
                for (Py_ssize_t i = 0; i < count; ++i) {
                    PyObject *item = PyList_GET_ITEM(value.get(), i);
                    if (item != Py_None)
                        m_pending.push_back({borrowed(item), id, slot + static_cast<std::uint32_t>(i)});
                }
            } else {
                m_pending.push_back({std::move(value), id, m_tree.addField(name, 1)});
            }
        }
        std::reverse(m_pending.begin() + static_cast<std::ptrdiff_t>(firstChild), m_pending.end()); // first on top
        return id;
    }

    const Runtime &m_rt;
    AstTree &m_tree;
    std::vector<Pending> m_pending;
    std::unordered_map<PyTypeObject *, TypeInfo> m_types;
};

// Where the first NUL byte is, as CPython would count it (1-based line and character).
void nulPosition(std::string_view source, std::size_t at, ParsedSource &out)
{
    out.line = 1;
    out.column = 1;
    for (std::size_t i = 0; i < at; ++i) {
        if (source[i] == '\n' || (source[i] == '\r' && (i + 1 >= at || source[i + 1] != '\n'))) {
            ++out.line;
            out.column = 1;
        } else if (!isContinuationByte(source[i]) && source[i] != '\r') {
            ++out.column;
        }
    }
}

} // namespace

ParsedSource parsePython(std::string_view source, const std::string &fileName, bool compile)
{
    ParsedSource out;
    const Runtime &rt = runtime();
    if (!rt.error.empty()) {
        out.error = "CPython could not start: " + rt.error;
        return out;
    }
    if (const std::size_t nul = source.find('\0'); nul != std::string_view::npos) {
        out.error = "source code string cannot contain null bytes"; // CPython's ValueError, given a place
        nulPosition(source, nul, out);
        return out;
    }
    const std::string text(source);
    const PyGILState_STATE gil = PyGILState_Ensure();
    {
        PyRef name(PyUnicode_DecodeFSDefault(fileName.empty() ? "<string>" : fileName.c_str()));
        PyCompilerFlags flags = _PyCompilerFlags_INIT;
        // Compiled first: the checks CPython makes after parsing are part of what it accepts.
        PyRef code(name && compile ? Py_CompileStringObject(text.c_str(), name.get(), Py_file_input, &flags, 0) : nullptr);
        PyRef module;
        if (code || (name && !compile)) {
            flags.cf_flags = PyCF_ONLY_AST;
            module = PyRef(Py_CompileStringObject(text.c_str(), name.get(), Py_file_input, &flags, 0));
        }
        if (!module) {
            takeError(out);
        } else {
            // Positions count UTF-8 bytes of the text as CPython decoded it (a coding cookie may name Latin-1).
            PyRef bytes(PyBytes_FromStringAndSize(text.data(), static_cast<Py_ssize_t>(text.size())));
            PyRef decoded(bytes ? PyObject_CallOneArg(rt.decodeSource, bytes.get()) : nullptr);
            out.tree.setSource(decoded && PyUnicode_Check(decoded.get()) ? utf8(decoded.get()) : text);
            PyErr_Clear();
            if (!Converter(rt, out.tree).convert(module.get())) {
                takeError(out);
                out.tree = AstTree();
            }
        }
    }
    PyGILState_Release(gil);
    return out;
}

std::string pythonVersion()
{
    const std::string full = Py_GetVersion();
    return full.substr(0, full.find(' '));
}

} // namespace splitscope::python
