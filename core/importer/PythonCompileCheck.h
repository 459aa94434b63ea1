// SPDX-License-Identifier: MIT
#pragma once

#include "PythonModule.h"
#include "PythonToken.h"

#include <string>
#include <vector>

namespace splitscope::importer {

// What CPython 3.11's compiler refuses in a module its parser accepted, as compile() reports
// it. Its symbol table comes first, for the whole module: a parameter named twice ("duplicate
// argument 'x' in function definition"), a global or nonlocal statement after the name is
// used, assigned or a parameter ("name 'x' is used prior to global declaration"), an
// annotated global, `import *` in a function or class, `yield` in a comprehension
// ("'yield' inside list comprehension"), then, once it has read it all, a nonlocal name
// no enclosing function binds ("no binding for nonlocal 'x' found"), at module level, or
// also global. Then its code generator, in the order it compiles the module (a class's
// bases after its body, a comprehension's first iterable after the rest): `return`,
// `yield` and `await` outside a function, `await`, `async for`, `async with` and an
// asynchronous list, set or dict comprehension outside an async function, `yield from`
// in one, `return VALUE` in an async generator, `break` and `continue` outside a loop, and
// a keyword argument given twice ("keyword argument repeated: a"). The fields of f-strings
// are checked as what they are (Token::fields).
//
// `pending`: the error the statement checker found for the code generator (a misplaced
// starred expression, at a `*`), which counts where the code generator meets it; empty
// message when none. Columns are counted in characters, as the tokens count them.
struct CompileIssue {
    std::string message;
    int line = 0;
    int column = 0;
    bool found() const { return !message.empty(); }
};

CompileIssue checkCompile(const std::vector<Token> &tokens, const std::vector<Statement> &statements,
    const CompileIssue &pending);

} // namespace splitscope::importer
