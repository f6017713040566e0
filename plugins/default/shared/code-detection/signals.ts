/**
 * The content signals of `containsCode`: per line, RE2 patterns that vote for formats with
 * weights (4–8 strong and nearly unique to a format, 2–3 characteristic, 1 weak). A signal shared
 * by related formats votes for each (a `const x =` for JavaScript and TypeScript alike), and a
 * format-specific one tips the balance (a `: string` annotation for TypeScript).
 *
 * Each signal names hints: plain substrings, one of which the line must contain before the
 * pattern runs. Most lines of prose contain none, so most patterns never run on them.
 */
import type { CodeFormat } from "./formats.js";

/** One signal. */
export interface Signal {
  /** Plain substrings (lower case when `ci`), one of which the line must contain; none: always run. */
  hints: readonly string[];
  /** RE2 pattern, matched against one line. */
  pattern: string;
  /** Match case-insensitively (hints are then compared with the lower-cased line). */
  ci?: boolean;
  weights: Partial<Record<CodeFormat, number>>;
  /** Counted only inside fenced blocks (Markdown: outside a fence, Markdown is the text itself). */
  fencedOnly?: boolean;
}

const s = (
  hints: string | readonly string[],
  pattern: string,
  weights: Partial<Record<CodeFormat, number>>,
  options: Partial<Signal> = {},
): Signal => ({
  hints: typeof hints === "string" ? (hints ? [hints] : []) : hints,
  pattern,
  weights,
  ...options,
});

const SQL: Signal[] = [
  s(
    "SELECT",
    '\\bSELECT\\s+(?:DISTINCT\\s+|TOP\\s+\\d+\\s+)?(?:\\*|[\\w.`"\\[\\]]+|COUNT\\(|SUM\\(|AVG\\(|MAX\\(|MIN\\().*\\bFROM\\b',
    { SQL: 5 },
  ),
  s(
    "SELECT",
    "^\\s*SELECT\\s+(?:DISTINCT\\s+)?(?:\\*|[\\w.]+(?:\\s+AS\\s+\\w+)?(?:\\s*,\\s*[\\w.()*]+(?:\\s+AS\\s+\\w+)?)*)\\s*,?\\s*$",
    { SQL: 3 },
  ),
  s(
    "select",
    "^\\s*select\\s+(?:\\*|distinct\\b|count\\(|[\\w.]+(?:\\s*,\\s*[\\w.]+)+)\\s.*\\bfrom\\s+[\\w.]+",
    { SQL: 4 },
    { ci: true },
  ),
  s(
    "select",
    "^\\s*select\\b.*\\bfrom\\s+[\\w.]+.*(?:;\\s*$|\\bwhere\\b|\\bjoin\\b|\\border\\s+by\\b|\\bgroup\\s+by\\b|\\blimit\\s+\\d)",
    { SQL: 4 },
    { ci: true },
  ),
  s("insert", '^\\s*insert\\s+into\\s+[\\w.`"]+\\s*(?:\\(|values\\b|select\\b)', { SQL: 5 }, { ci: true }),
  s("update", '^\\s*update\\s+[\\w.`"]+\\s+set\\s+[\\w.]+\\s*=', { SQL: 5 }, { ci: true }),
  s("DELETE", "^\\s*DELETE\\s+FROM\\s+\\w", { SQL: 5 }),
  s("delete", '^\\s*delete\\s+from\\s+[\\w.`"]+\\s*(?:where\\b|;)', { SQL: 5 }, { ci: true }),
  s(
    "CREATE",
    "^\\s*CREATE\\s+(?:OR\\s+REPLACE\\s+)?(?:TEMP\\s+|TEMPORARY\\s+|UNIQUE\\s+)?(?:TABLE|INDEX|VIEW|DATABASE|SCHEMA|FUNCTION|PROCEDURE|TRIGGER|SEQUENCE|TYPE)\\b",
    { SQL: 5 },
  ),
  s(
    "create",
    '^\\s*create\\s+(?:or\\s+replace\\s+)?(?:temp\\s+|temporary\\s+|unique\\s+)?(?:table|index|view)\\s+(?:if\\s+not\\s+exists\\s+)?[\\w.`"]+.*(?:\\(|;|\\bas\\b|\\bon\\b)',
    { SQL: 5 },
    { ci: true },
  ),
  s(["alter", "drop", "truncate"], '^\\s*(?:alter|drop|truncate)\\s+table\\s+[\\w.`"]+', { SQL: 5 }, { ci: true }),
  s(
    [
      "FROM",
      "WHERE",
      "AND",
      "OR",
      "JOIN",
      "GROUP BY",
      "ORDER BY",
      "HAVING",
      "LIMIT",
      "OFFSET",
      "VALUES",
      "UNION",
      "ON",
      "RETURNING",
      "WITH",
    ],
    "^\\s*(?:FROM|WHERE|AND|OR|JOIN|LEFT JOIN|RIGHT JOIN|INNER JOIN|OUTER JOIN|FULL JOIN|CROSS JOIN|GROUP BY|ORDER BY|HAVING|LIMIT|OFFSET|VALUES|UNION(?: ALL)?|ON|RETURNING|WITH\\s+\\w+\\s+AS)\\b",
    { SQL: 2 },
  ),
  s(
    ["KEY", "NULL", "REFERENCES", "AUTO_INCREMENT", "DEFAULT"],
    "\\b(?:PRIMARY KEY|FOREIGN KEY|NOT NULL|REFERENCES|AUTO_INCREMENT|DEFAULT CURRENT_TIMESTAMP)\\b",
    { SQL: 3 },
  ),
  s(
    ["INT", "CHAR", "SERIAL", "BOOLEAN", "TIMESTAMP", "TEXT", "NUMERIC", "DECIMAL", "DATE"],
    '^\\s*[\\w"`]+\\s+(?:VARCHAR|INTEGER|INT|BIGINT|SMALLINT|SERIAL|BIGSERIAL|BOOLEAN|TIMESTAMP|TEXT|NUMERIC|DECIMAL|CHAR|DATE|UUID|JSONB)\\b.*,?\\s*$',
    { SQL: 3 },
  ),
  s("--", "^\\s*--\\s", { SQL: 1 }),
];

const PYTHON: Signal[] = [
  s("def", "^\\s*(?:async\\s+)?def\\s+\\w+\\s*\\(.*\\)\\s*(?:->\\s*[^:]+)?:\\s*(?:#.*)?$", { Python: 6 }),
  s("def", "^\\s*(?:async\\s+)?def\\s+\\w+\\s*\\($", { Python: 4 }),
  s("class", "^\\s*class\\s+\\w+(?:\\([\\w., =]*\\))?:\\s*$", { Python: 6 }),
  s("import", "^\\s*from\\s+\\.{0,3}[\\w.]*\\s+import\\s+(?:\\*|\\(|[\\w, ]+)", { Python: 6 }),
  s("import", "^\\s*import\\s+[a-z_][a-z0-9_]*(?:\\s+as\\s+\\w+)?(?:\\s*,\\s*[a-z_][a-z0-9_]*)*\\s*$", { Python: 4 }),
  s("import", "^\\s*import\\s+[a-z_][\\w]*(?:\\.[a-z_]\\w*)+(?:\\s+as\\s+\\w+)?\\s*$", { Python: 2, Kotlin: 1, Scala: 1 }),
  s(
    ["elif", "else", "try", "finally", "except"],
    "^\\s*(?:elif\\s+.+|else|try|finally|except(?:\\s+[\\w.()\\s,]+(?:\\s+as\\s+\\w+)?)?)\\s*:\\s*$",
    { Python: 4 },
  ),
  s(["if", "while"], "^\\s*(?:if|while)\\s+.+:\\s*$", { Python: 3 }),
  s("for", "^\\s*for\\s+[\\w, ()]+\\s+in\\s+.+:\\s*$", { Python: 5 }),
  s("with", "^\\s*(?:async\\s+)?with\\s+.+\\s+as\\s+\\w+\\s*:\\s*$", { Python: 5 }),
  s("print(", "\\bprint\\(\\s*f?[\"']", { Python: 2, Swift: 1 }),
  s(['f"', "f'"], "\\bf\"[^\"]*\\{[^}]+\\}|\\bf'[^']*\\{[^}]+\\}", { Python: 4 }),
  s("self.", "\\bself\\.\\w+\\s*=", { Python: 2, Swift: 1 }),
  s("__", "__(?:init|name|main|str|repr|dict|len|call|enter|exit)__", { Python: 6 }),
  s(["None", "True", "False"], "\\b(?:None|True|False)\\b", { Python: 1 }),
  s("lambda", "\\blambda\\s+[\\w, ]*:", { Python: 4 }),
  s(
    ["raise", "yield", "assert", "pass", "nonlocal", "global"],
    "^\\s*(?:raise\\s+\\w+|yield\\b|assert\\s+\\w|pass\\s*$|nonlocal\\s+\\w|global\\s+\\w)",
    { Python: 3 },
  ),
  s(" in ", "\\[[^\\]]*\\bfor\\s+\\w+\\s+in\\s+[^\\]]+\\]", { Python: 5 }),
  s(["len(", "range(", "enumerate(", "isinstance(", "append("], "\\b(?:len|range|enumerate|isinstance)\\(|\\.append\\(", {
    Python: 1,
  }),
  s("python", "^#!.*\\bpython", { Python: 8 }),
  s(["pd.", "np.", "plt.", "torch.", "tf."], "\\b(?:pd|np|plt|torch|tf|sns)\\.\\w+\\(", { Python: 4 }),
  s(['"""', "'''"], "^\\s*(?:\"\"\"|''')", { Python: 3 }),
  s("@", "^\\s*@[\\w.]+(?:\\(.*\\))?\\s*$", { Python: 1, Java: 1 }),
];

const JS_TS: Signal[] = [
  s("console.", "\\bconsole\\.(?:log|error|warn|info|debug|table)\\(", { JavaScript: 4, TypeScript: 4 }),
  s("const", "^\\s*(?:export\\s+)?const\\s+[\\w$]+\\s*=", { JavaScript: 3, TypeScript: 3 }),
  s("const", "^\\s*(?:export\\s+)?const\\s+[\\[{]", { JavaScript: 4, TypeScript: 4 }),
  s(["let", "var"], "^\\s*(?:let|var)\\s+[\\w$]+\\s*=.*;\\s*$", { JavaScript: 2, TypeScript: 2, "C#": 1, Rust: 1 }),
  s(["let", "var"], "^\\s*(?:let|var)\\s+[\\w$]+\\s*=\\s*[^;]*$", {
    JavaScript: 1,
    TypeScript: 1,
    Swift: 1,
    Kotlin: 1,
    Scala: 1,
  }),
  s("function", "\\bfunction\\s*\\*?\\s*[\\w$]*\\s*\\([^$)]*\\)\\s*\\{", { JavaScript: 3, TypeScript: 2 }),
  s("=>", "=>\\s*\\{|\\)\\s*=>", { JavaScript: 2, TypeScript: 2, "C#": 1 }),
  s("require(", "\\brequire\\(['\"][\\w@./-]+['\"]\\)", { JavaScript: 5, TypeScript: 1 }),
  s("exports", "\\bmodule\\.exports\\b|\\bexports\\.\\w+\\s*=", { JavaScript: 6 }),
  s("import", "^\\s*import\\s+(?:[\\w$*{},\\s]+\\s+from\\s+)?['\"][\\w@./:-]+['\"];?\\s*$", { JavaScript: 4, TypeScript: 4 }),
  s("import type", "^\\s*import\\s+type\\s+", { TypeScript: 6 }),
  s("export", "^\\s*export\\s+(?:default\\s+)?(?:async\\s+)?(?:function|class|const|let)\\b", { JavaScript: 3, TypeScript: 3 }),
  s(
    ["document.", "window."],
    "\\bdocument\\.(?:getElementById|querySelector|querySelectorAll|createElement|addEventListener|body)\\b|\\bwindow\\.\\w+",
    { JavaScript: 4, TypeScript: 2 },
  ),
  s(
    [".then(", "fetch(", "JSON.", "addEventListener", "Promise"],
    "\\.addEventListener\\(|\\.then\\(|\\bfetch\\(|\\bJSON\\.(?:parse|stringify)\\(|\\bnew Promise\\(",
    { JavaScript: 2, TypeScript: 2 },
  ),
  s(["===", "!=="], "===|!==", { JavaScript: 2, TypeScript: 2, PHP: 1 }),
  s("undefined", "\\bundefined\\b", { JavaScript: 1, TypeScript: 1 }),
  s("${", "`[^`]*\\$\\{[^}]+\\}[^`]*`", { JavaScript: 2, TypeScript: 2 }),
  s(
    ["className=", "onClick=", "useState", "useEffect"],
    "\\bclassName=|\\bonClick=\\{|\\buse(?:State|Effect|Memo|Ref|Callback)\\(",
    { JavaScript: 3, TypeScript: 3 },
  ),
  s("constructor", "^\\s*constructor\\s*\\(", { JavaScript: 3, TypeScript: 3 }),
  s("this.", "\\bthis\\.\\w+\\s*(?:=[^=]|\\+\\+|--)", { JavaScript: 2, TypeScript: 2, Java: 1, "C#": 1 }),
  // TypeScript only.
  s("function", "\\bfunction\\s+\\w+\\s*<[\\w, ]+>\\s*\\(|\\bfunction\\s+\\w+\\s*\\([^)]*\\w\\s*:\\s*[^)]*\\)\\s*:", {
    TypeScript: 5,
  }),
  s("const", "^\\s*(?:export\\s+)?const\\s+\\w+\\s*:\\s*[\\w<>\\[\\]|. ]+=", { TypeScript: 5 }),
  s(["type ", "interface "], "^\\s*(?:export\\s+)?(?:declare\\s+)?type\\s+[A-Z]\\w*(?:<[^>]*>)?\\s*=", { TypeScript: 6 }),
  s("interface", "^\\s*export\\s+(?:default\\s+)?interface\\s+\\w+", { TypeScript: 6 }),
  s("interface", "^\\s*interface\\s+[A-Z]\\w*(?:<[^>]*>)?\\s*(?:extends\\s+[\\w<>, .]+)?\\{\\s*$", {
    TypeScript: 3,
    Java: 1,
    Kotlin: 1,
    "C#": 1,
  }),
  s(
    ["string", "number", "boolean", "any", "void", "unknown", "never"],
    ":\\s*(?:string|number|boolean|any|void|unknown|never|bigint)(?:\\[\\])?\\s*(?:[,)=;{|]|$)",
    { TypeScript: 5 },
  ),
  s(["Promise<", "string", "number", "boolean", "void"], "\\)\\s*:\\s*(?:Promise<|string\\b|number\\b|boolean\\b|void\\b)", {
    TypeScript: 5,
  }),
  s(" as ", "\\bas\\s+(?:const|string|number|any|unknown)\\b", { TypeScript: 5 }),
  s(
    ["public", "private", "protected", "readonly"],
    "\\b(?:public|private|protected|readonly)\\s+(?:readonly\\s+)?[\\w$]+\\s*\\??:\\s*[\\w<\\[{]",
    { TypeScript: 5 },
  ),
  s("declare", "^\\s*declare\\s+(?:module|const|function|global|namespace)\\b", { TypeScript: 6 }),
  s("?:", "^\\s*[\\w$]+\\?:\\s*[\\w<\\[{'\"]", { TypeScript: 4 }),
  s(["React.FC", ": React."], "\\bReact\\.FC\\b|:\\s*React\\.\\w+", { TypeScript: 4 }),
];

const JAVA: Signal[] = [
  s("System.", "\\bSystem\\.(?:out|err)\\.print(?:ln|f)?\\(", { Java: 6 }),
  s("main", "public\\s+static\\s+void\\s+main\\s*\\(\\s*String", { Java: 8 }),
  s("import", "^\\s*import\\s+(?:static\\s+)?(?:java|javax|org|com|android|lombok|jakarta)\\.[\\w.*]+;\\s*$", { Java: 6 }),
  s("package", "^\\s*package\\s+[\\w.]+;\\s*$", { Java: 5 }),
  s(
    ["public", "private", "protected"],
    "^\\s*(?:public|private|protected)\\s+(?:static\\s+)?(?:final\\s+)?(?:abstract\\s+)?(?:sealed\\s+)?(?:class|interface|enum|record)\\s+\\w+",
    { Java: 2, "C#": 2 },
  ),
  s(
    ["public", "private", "protected"],
    "^\\s*(?:public|private|protected)\\s+(?:static\\s+)?(?:final\\s+)?(?:synchronized\\s+)?[\\w<>\\[\\], ?]+\\s+[a-z]\\w*\\s*\\([^)]*\\)\\s*(?:throws\\s+[\\w, ]+)?\\s*\\{?\\s*$",
    { Java: 3, "C#": 1 },
  ),
  s("@", "@(?:Override|Autowired|SpringBootApplication|RestController|Entity|GetMapping|PostMapping|Component|Service|Bean)\\b", {
    Java: 5,
  }),
  s(
    ["String", "ArrayList", "HashMap", "StringBuilder", "Scanner"],
    "\\bString\\[\\]\\s*\\w+|\\bnew\\s+(?:ArrayList|HashMap|HashSet|LinkedList|StringBuilder|Scanner)\\s*[<(]",
    { Java: 5 },
  ),
  s("final", "\\bfinal\\s+[A-Z]\\w*(?:<.*>)?\\s+\\w+\\s*=", { Java: 3 }),
  s("String", "(?:^|[\\s(])String\\s+[a-z]\\w*\\s*[=;,)]", { Java: 3 }),
  s("boolean", "\\bboolean\\s+\\w+", { Java: 3 }),
  s([".stream()", "Collectors."], "\\.stream\\(\\)|\\bCollectors\\.", { Java: 5 }),
  s("throws", "\\bthrows\\s+\\w+(?:Exception|Error)\\b", { Java: 5 }),
  s("implements", "\\bimplements\\s+[A-Z]\\w*(?:<[^>]*>)?(?:\\s*,\\s*[A-Z]\\w*(?:<[^>]*>)?)*\\s*\\{", {
    Java: 3,
    TypeScript: 2,
    PHP: 1,
  }),
];

const CSHARP: Signal[] = [
  s("using", "^\\s*using\\s+System(?:\\.[\\w.]+)?;\\s*$", { "C#": 7 }),
  s("using", "^\\s*using\\s+[A-Z][\\w.]*;\\s*$", { "C#": 4 }),
  s("Console.", "\\bConsole\\.(?:WriteLine|Write|ReadLine|ReadKey)\\(", { "C#": 7 }),
  s("namespace", "^\\s*namespace\\s+[\\w.]+\\s*;?\\s*\\{?\\s*$", { "C#": 2, "C++": 2 }),
  s("get;", "\\{\\s*get;\\s*(?:(?:private\\s+|protected\\s+)?(?:set|init);\\s*)?\\}", { "C#": 7 }),
  s("new", "\\bvar\\s+\\w+\\s*=\\s*new\\s+", { "C#": 3, Java: 1 }),
  s("string", "\\bstring\\s+[a-zA-Z_]\\w*\\s*[=;),]|\\bstring\\[\\]", { "C#": 3, "C++": 1 }),
  s("Task", "\\basync\\s+Task(?:<.*>)?\\s+\\w+\\s*\\(", { "C#": 7 }),
  s(
    ["public", "private", "internal", "protected"],
    "\\b(?:public|private|internal|protected)\\s+(?:static\\s+)?(?:async\\s+)?(?:override\\s+|virtual\\s+)?(?:void|int|string|bool|Task|IActionResult|IEnumerable<.*>|List<.*>|double|decimal)\\s+[A-Z]\\w*\\s*\\(",
    { "C#": 4 },
  ),
  s("foreach", "\\bforeach\\s*\\(\\s*var\\s+", { "C#": 7 }),
  s(
    ["Where(", "Select(", "OrderBy", "FirstOrDefault", "ToList", "Any(", "Count("],
    "\\.(?:Where|Select|OrderBy|OrderByDescending|FirstOrDefault|Any|Count|Sum)\\(\\s*\\w+\\s*=>|\\.ToList\\(\\)",
    { "C#": 6 },
  ),
  s("[", "^\\s*\\[[A-Z]\\w*(?:\\(.*\\))?\\]\\s*$", { "C#": 3 }),
  s("bool", "\\bbool\\s+\\w+\\s*[=;]", { "C#": 2, "C++": 1 }),
  s('$"', '\\$"[^"]*\\{', { "C#": 5 }),
];

const C_CPP: Signal[] = [
  s("include", "^\\s*#\\s*include\\s*<[\\w/]+\\.h>", { C: 4, "C++": 2 }),
  s("include", '^\\s*#\\s*include\\s*"[\\w/.]+\\.h"', { C: 3, "C++": 2 }),
  s("include", "^\\s*#\\s*include\\s*<[a-z_]+>", { "C++": 7 }),
  s(["define", "ifdef", "ifndef", "endif", "pragma", "undef"], "^\\s*#\\s*(?:define|ifdef|ifndef|endif|pragma|undef)\\b", {
    C: 3,
    "C++": 2,
  }),
  s(
    ["printf", "scanf", "alloc", "free(", "mem", "str"],
    "\\b(?:printf|fprintf|sprintf|snprintf|scanf|malloc|calloc|realloc|free|memcpy|memset|strcpy|strncpy|strlen|strcmp)\\s*\\(",
    { C: 3, "C++": 1 },
  ),
  s("main", "\\bint\\s+main\\s*\\(", { C: 4, "C++": 4 }),
  s(["fopen", "fclose", "perror", "fgets", "fputs", "FILE"], "\\b(?:fopen|fclose|perror|fgets|fputs)\\s*\\(|\\bFILE\\s*\\*", {
    C: 4,
    "C++": 1,
  }),
  s(
    ["void", "int", "char", "float", "double", "long", "short", "size_t", "_t"],
    "^\\s*(?:static\\s+|extern\\s+|inline\\s+|const\\s+|unsigned\\s+|signed\\s+)*(?:void|int|char|float|double|long|short|size_t|uint\\d+_t|int\\d+_t)\\s+\\**\\s*\\w+\\s*\\([^;]*\\)\\s*\\{?\\s*$",
    { C: 3, "C++": 2 },
  ),
  s("struct", "\\btypedef\\s+struct\\b|\\bstruct\\s+\\w+\\s*\\*", { C: 5, "C++": 1 }),
  s("struct", "^\\s*struct\\s+\\w+\\s*\\{\\s*$", { C: 1, "C++": 1, Rust: 1, Swift: 1 }),
  s("->", "\\b[a-z_]\\w*->[a-z_]\\w*", { C: 1, "C++": 1, PHP: 1, Perl: 1 }),
  s("NULL", "\\bNULL\\b", { C: 2, "C++": 1, R: 1 }),
  s("char", "\\bchar\\s*\\*\\s*\\w+|\\bchar\\s+\\w+\\[", { C: 4, "C++": 2 }),
  s(
    ["int ", "double ", "float ", "long "],
    "^\\s*(?:int|double|float|long|unsigned)\\s+\\w+(?:\\[\\d*\\])?\\s*(?:=\\s*[^;]+)?;\\s*$",
    { C: 2, "C++": 2, Java: 1, "C#": 1 },
  ),
  s("return 0;", "\\breturn\\s+0;\\s*$", { C: 1, "C++": 1 }),
  s("std::", "\\bstd::\\w+", { "C++": 7 }),
  s(["cout", "cerr", "endl", "cin"], "\\b(?:cout|cerr)\\s*<<|<<\\s*(?:std::)?endl\\b|\\bcin\\s*>>", { "C++": 7 }),
  s("template", "^\\s*template\\s*<", { "C++": 6 }),
  s("namespace", "^\\s*using\\s+namespace\\s+\\w+;", { "C++": 7 }),
  s(
    ["nullptr", "constexpr", "_cast<", "_ptr<", "make_"],
    "\\bnullptr\\b|\\bconstexpr\\b|\\b(?:static|dynamic|reinterpret|const)_cast<|\\b(?:unique|shared|weak)_ptr<|\\bmake_(?:unique|shared)<",
    { "C++": 6 },
  ),
  s(["public:", "private:", "protected:"], "^\\s*(?:public|private|protected):\\s*$", { "C++": 6 }),
  s(["virtual", "override"], "\\bvirtual\\s+\\w|\\)\\s*(?:const\\s*)?override\\s*[;{]", { "C++": 5 }),
  s("class", "^\\s*class\\s+\\w+\\s*:\\s*(?:public|private|protected)\\s+\\w+", { "C++": 6 }),
  s("::", "\\b\\w+::\\w+\\s*\\(", { "C++": 2, Rust: 2, PHP: 1 }),
  s("auto", "\\bauto\\s+[\\w&*\\[\\]]+\\s*[=:]|\\(\\s*(?:const\\s+)?auto\\s*&", { "C++": 5 }),
];

const RUBY: Signal[] = [
  s("require", "^\\s*require(?:_relative)?\\s+['\"][\\w/.-]+['\"]\\s*$", { Ruby: 5 }),
  s("def", "^\\s*def\\s+(?:self\\.)?[\\w?!]+(?:\\(.*\\))?\\s*$", { Ruby: 4 }),
  s("end", "^\\s*end\\s*$", { Ruby: 2 }),
  s("do", "\\bdo\\s*\\|[\\w, *]+\\|", { Ruby: 6 }),
  s(".each", "\\.each(?:_with_index|_pair)?\\s*(?:do\\b|\\{)", { Ruby: 5 }),
  s(["class", "module"], "^\\s*(?:class|module)\\s+[A-Z]\\w*(?:::[A-Z]\\w*)*\\s*$", { Ruby: 3 }),
  s("class", "^\\s*class\\s+[A-Z]\\w*\\s*<\\s*[A-Z][\\w:]*\\s*$", { Ruby: 6 }),
  s("attr_", "^\\s*attr_(?:accessor|reader|writer)\\s+:", { Ruby: 7 }),
  s("puts", "^\\s*puts\\s+\\S", { Ruby: 4 }),
  s("#{", "#\\{[^}]+\\}", { Ruby: 3 }),
  s(["elsif", "unless"], "^\\s*(?:elsif|unless)\\s+[^(\\s]", { Ruby: 4 }),
  s("@", "^\\s*@[a-z_]\\w*\\s*(?:\\|\\|)?=\\s*", { Ruby: 4, Perl: 1 }),
  s("=>", ":\\w+\\s*=>", { Ruby: 4 }),
  s("?", "\\.(?:nil|empty|include|any|key|zero|blank|present)\\?", { Ruby: 5 }),
  s(["gem ", "source "], "^\\s*(?:gem|source)\\s+['\"]", { Ruby: 5 }),
  s(["Rails.", "ActiveRecord", "belongs_to", "has_many"], "\\bRails\\.|\\bActiveRecord::|\\bbelongs_to\\s+:|\\bhas_many\\s+:", {
    Ruby: 6,
  }),
];

const PHP: Signal[] = [
  s("<?php", "<\\?php", { PHP: 9 }),
  s("$this->", "\\$this->", { PHP: 6 }),
  s("function", "\\bfunction\\s+\\w+\\s*\\(\\s*(?:[\\w?]+\\s+)?\\$", { PHP: 6 }),
  s("function", "^\\s*(?:public|private|protected)\\s+(?:static\\s+)?function\\b", { PHP: 6 }),
  s("echo", "^\\s*echo\\s+.*;\\s*$", { PHP: 3 }),
  s("$", "^\\s*\\$\\w+\\s*=\\s*[^=;]+;\\s*$", { PHP: 3, Perl: 2 }),
  s("->", "\\$\\w+->\\w+\\s*\\(", { PHP: 3, Perl: 1 }),
  s("$_", "\\$_(?:GET|POST|SERVER|SESSION|COOKIE|REQUEST|FILES)\\b", { PHP: 7 }),
  s(["namespace", "use"], "^\\s*(?:namespace|use)\\s+[\\w\\\\]+\\\\[\\w\\\\]+(?:\\s+as\\s+\\w+)?;", { PHP: 6 }),
  s("array(", "\\barray\\(\\s*['\"$\\d\\)]", { PHP: 4 }),
  s("=>", "['\"][\\w-]+['\"]\\s*=>", { PHP: 2, Perl: 1, Ruby: 1 }),
  s("foreach", "\\bforeach\\s*\\(\\s*\\$\\w+\\s+as\\s+\\$", { PHP: 7 }),
  s("?>", "\\?>", { PHP: 3 }),
];

const SWIFT: Signal[] = [
  s("import", "^\\s*import\\s+(?:UIKit|SwiftUI|Foundation|Combine|XCTest|AppKit|CoreData|MapKit)\\s*$", { Swift: 7 }),
  s("func", "\\bfunc\\s+\\w+(?:<[^>]+>)?\\s*\\([^)]*\\w+\\s*:\\s*[\\w\\[\\]?]", { Swift: 5 }),
  s("func", "\\bfunc\\s+\\w+(?:<[^>]+>)?\\s*\\([^)]*\\)\\s*(?:async\\s+)?(?:throws\\s+)?->", { Swift: 5 }),
  s("func", "\\bfunc\\s+\\w+\\s*\\(\\)\\s*\\{", { Swift: 2, Go: 2 }),
  s(
    ["guard", "if let", "if var"],
    "^\\s*(?:guard\\s+(?:let|var)\\s+\\w+|guard\\s+.+\\belse\\s*\\{|(?:if|while)\\s+(?:let|var)\\s+\\w+\\s*=)",
    { Swift: 6 },
  ),
  s(
    "@",
    "@(?:State|Published|Binding|IBOutlet|IBAction|objc|MainActor|ObservedObject|EnvironmentObject|StateObject|escaping)\\b",
    { Swift: 7 },
  ),
  s("\\(", "\\\\\\([\\w.]+\\)", { Swift: 5 }),
  s(
    ["struct", "class", "enum", "extension", "protocol"],
    "^\\s*(?:struct|class|enum|extension|protocol)\\s+\\w+:\\s*[A-Z]\\w*(?:\\s*,\\s*[A-Z]\\w*)*\\s*\\{",
    { Swift: 5 },
  ),
  s(["struct", "class"], "^\\s*(?:class|struct)\\s+\\w+\\s+:\\s+[A-Z]\\w*(?:\\s*,\\s*[A-Z]\\w*)*\\s*\\{", {
    Swift: 1,
    "C#": 2,
    Kotlin: 2,
  }),
  s(["extension", "protocol"], "^\\s*(?:extension|protocol)\\s+[A-Z]\\w*", { Swift: 6 }),
  s("var", "\\bvar\\s+\\w+\\s*:\\s*[A-Z]\\w*[?!]?\\s*(?:=|\\{|$)", { Swift: 2, Kotlin: 2, TypeScript: 1 }),
  s("let", "\\blet\\s+\\w+\\s*:\\s*[A-Z][\\w<>\\[\\]?]*\\s*=", { Swift: 3, TypeScript: 1, Rust: 1 }),
  s("some View", "\\bvar\\s+body\\s*:\\s*some\\s+View\\b", { Swift: 9 }),
  s("->", "->\\s*(?:String|Bool|Int|Double|Void|Float|some\\s+\\w+|\\[\\w+\\])\\s*\\{", { Swift: 4 }),
];

const KOTLIN: Signal[] = [
  s(
    "fun",
    "^\\s*(?:(?:private|public|internal|protected|override|suspend|inline|open|abstract|operator|infix|tailrec)\\s+)*fun\\s+(?:<[^>]+>\\s*)?[\\w.]+\\s*\\(",
    { Kotlin: 6 },
  ),
  s("val", "\\bval\\s+\\w+(?:\\s*:\\s*[\\w<>?, ]+)?\\s*=", { Kotlin: 3, Scala: 3 }),
  s("data class", "^\\s*data\\s+class\\s+", { Kotlin: 7 }),
  s("companion", "\\bcompanion\\s+object\\b", { Kotlin: 7 }),
  s("object", "^\\s*object\\s+\\w+\\s*(?::\\s*\\w+(?:\\(\\))?)?\\s*\\{", { Kotlin: 2, Scala: 2 }),
  s("when", "\\bwhen\\s*\\([^)]*\\)\\s*\\{|^\\s*when\\s*\\{", { Kotlin: 6 }),
  s(["?.let", "?.also", "?.apply", "?:"], '\\?\\.(?:let|also|apply|run)\\s*\\{|\\?:\\s*(?:return|throw|\\w|"|\\d)', {
    Kotlin: 4,
  }),
  s("import", "^\\s*import\\s+(?:kotlinx?|androidx?)\\.[\\w.*]+\\s*$", { Kotlin: 7 }),
  s("println(", "\\bprintln\\(", { Kotlin: 2, Scala: 2 }),
  s(
    ["listOf", "ListOf", "mapOf", "MapOf", "setOf", "arrayOf"],
    "\\b(?:listOf|mutableListOf|mapOf|mutableMapOf|setOf|mutableSetOf|arrayOf)\\(",
    { Kotlin: 6 },
  ),
  s("package", "^\\s*package\\s+[a-z][\\w]*(?:\\.[\\w]+)+\\s*$", { Kotlin: 3, Scala: 3 }),
  s(["lateinit", "by lazy"], "\\blateinit\\s+var\\b|\\bby\\s+lazy\\b", { Kotlin: 7 }),
  s("it.", "\\{\\s*it\\.\\w+|\\bit\\s*->", { Kotlin: 3 }),
  s(["->"], "^\\s*(?:is\\s+\\w+|else|[\\w.\"']+(?:\\s*,\\s*[\\w.\"']+)*)\\s*->\\s*\\S", { Kotlin: 2 }),
];

const SCALA: Signal[] = [
  s(
    "def",
    "^\\s*(?:override\\s+|private\\s+|protected\\s+|final\\s+|implicit\\s+)*def\\s+\\w+(?:\\[[^\\]]+\\])?(?:\\([^)]*\\))*\\s*(?::\\s*[\\w\\[\\], ]+)?\\s*=",
    { Scala: 6 },
  ),
  s("import", "^\\s*import\\s+(?:scala|akka|cats|zio|play)\\.", { Scala: 7 }),
  s(["class", "trait"], "^\\s*(?:final\\s+)?case\\s+(?:class|object)\\b|^\\s*sealed\\s+(?:trait|abstract\\s+class)\\b", {
    Scala: 7,
  }),
  s("class", "^\\s*class\\s+\\w+(?:\\[[^\\]]+\\])?\\((?:val|var)?\\s*\\w+\\s*:", { Scala: 2, Kotlin: 2 }),
  s("trait", "^\\s*trait\\s+[A-Z]\\w*", { Scala: 3, Rust: 2 }),
  s("extends App", "\\bobject\\s+\\w+\\s+extends\\s+App\\b", { Scala: 7 }),
  s("case", "\\bcase\\s+[^=]+=>", { Scala: 4 }),
  s(
    ["List[", "Seq[", "Option[", "Future[", "Map[", "Set[", "Either[", "Array[", "Vector["],
    "\\b(?:List|Seq|Option|Future|Map|Set|Either|Array|Vector)\\[[\\w, ()\\[\\]]+\\]",
    { Scala: 4 },
  ),
  s("for", "\\bfor\\s*\\{\\s*$", { Scala: 3 }),
  s(["List(", "Seq(", "Vector(", "Set(", "Map(", "Array("], "\\b(?:List|Seq|Vector|Set|Map|Array)\\(", { Scala: 2 }),
  s("yield", "^\\s*\\}\\s*yield\\b", { Scala: 4 }),
  s("implicit", "\\bimplicit\\s+\\w", { Scala: 6 }),
  s(" with ", "\\bextends\\s+\\w+\\s+with\\s+\\w+", { Scala: 6 }),
  s("<-", "\\bfor\\s*[({]\\s*\\w+\\s*<-", { Scala: 5 }),
  s("match", "\\bmatch\\s*\\{\\s*$", { Scala: 4, Rust: 1 }),
];

const GO: Signal[] = [
  s("package", "^\\s*package\\s+[a-z_][a-z0-9_]*\\s*$", { Go: 6 }),
  s("import", '^\\s*import\\s+\\(\\s*$|^\\s*import\\s+(?:\\w+\\s+)?"[\\w./-]+"\\s*$', { Go: 6 }),
  s(
    ["fmt.", "errors.New", "http."],
    "\\bfmt\\.\\w+\\(|\\berrors\\.New\\(|\\bhttp\\.(?:HandleFunc|ListenAndServe|ResponseWriter)\\b",
    { Go: 6 },
  ),
  s("err", "\\bif\\s+err\\s*!=\\s*nil\\b|\\berr\\s*:?=", { Go: 6 }),
  s(":=", ":=", { Go: 3 }),
  s("func", "\\bfunc\\s+\\(\\w+\\s+\\*?\\w+\\)\\s+\\w+\\s*\\(", { Go: 7 }),
  s("func", "\\bfunc\\s+\\w+\\s*\\((?:[a-z_]\\w*(?:\\s*,\\s*[a-z_]\\w*)*\\s+[\\w.*\\[\\]]+(?:\\s*,\\s*)?)+\\)", { Go: 5 }),
  s(["chan ", "go func", "defer "], "\\bchan\\s+\\w+|\\bgo\\s+func\\b|^\\s*defer\\s+\\w", { Go: 5 }),
  s("type", "^\\s*type\\s+\\w+\\s+(?:struct|interface)\\s*\\{", { Go: 7 }),
  s(["[]", "map["], "\\[\\]\\*?\\w+\\{|\\bmap\\[\\w+\\]\\w+", { Go: 5 }),
  s("func main", "\\bfunc\\s+main\\(\\)\\s*\\{", { Go: 4 }),
  s("nil", "\\bnil\\b", { Go: 1, Swift: 1, Ruby: 1 }),
];

const RUST: Signal[] = [
  s("fn", "^\\s*(?:pub(?:\\([\\w:]+\\))?\\s+)?(?:async\\s+)?(?:unsafe\\s+)?(?:const\\s+)?fn\\s+\\w+", { Rust: 6 }),
  s("let mut", "\\blet\\s+mut\\s+", { Rust: 6 }),
  s(
    "!",
    "\\b(?:println|print|eprintln|format|vec|panic|assert|assert_eq|write|writeln|macro_rules|todo|unimplemented)!\\s*[(\\[{]",
    { Rust: 6 },
  ),
  s("use", "^\\s*use\\s+(?:std|crate|super|self|tokio|serde|anyhow)(?:::[\\w{}*, ]+)*;?", { Rust: 6 }),
  s(["use", "::"], "^\\s*use\\s+\\w+(?:::[\\w{}*, ]+)+;", { Rust: 4 }),
  s("impl", "^\\s*impl(?:<[^>]*>)?\\s+[\\w<>:]+", { Rust: 6 }),
  s("#", "#\\[(?:derive|cfg|test|tokio::main|allow|serde)\\b|#!\\[", { Rust: 7 }),
  s(["&mut", "&self", "&str"], "&mut\\s|&self\\b|&str\\b|&'\\w+", { Rust: 5 }),
  s([".unwrap()", ".expect(", "?;"], '\\.unwrap\\(\\)|\\.expect\\("|\\?;\\s*$', { Rust: 4 }),
  s("match", "\\bmatch\\s+[\\w.&*()]+\\s*\\{", { Rust: 4 }),
  s("->", "->\\s*(?:Result<|Option<|Self\\b|Vec<|i32\\b|i64\\b|u8\\b|u32\\b|u64\\b|usize\\b|f64\\b|&)", { Rust: 5 }),
  s("pub", "^\\s*pub\\s+(?:struct|enum|trait|mod|type|const|static|use)\\b", { Rust: 6 }),
  s(["Some(", "None", "Ok(", "Err("], "\\bSome\\(|\\bOk\\(|\\bErr\\(", { Rust: 2, Scala: 1 }),
  s("::new(", "::new\\(", { Rust: 2, "C++": 1 }),
  s("(|", "\\(\\|[\\w, &]*\\|", { Rust: 5 }),
  s([":"], ":\\s*&?(?:i8|i16|i32|i64|i128|u8|u16|u32|u64|u128|usize|isize|f32|f64)\\b", { Rust: 5 }),
  s("=>", "^\\s*[\\w:]+(?:\\([\\w, _]*\\))?\\s*=>\\s*[^>]", { Rust: 2, Scala: 1 }),
];

const R: Signal[] = [
  s("<-", "^\\s*[\\w.]+(?:\\$\\w+|\\[[^\\]]*\\])?\\s*<-\\s*", { R: 4 }),
  s("function", "<-\\s*function\\s*\\(", { R: 7 }),
  s(["library(", "require("], "^\\s*(?:library|require|suppressPackageStartupMessages)\\(\\w+\\)", { R: 7 }),
  s(["%>%", "%in%", "|>"], "%>%|%in%|\\|>", { R: 4 }),
  s(
    ["data.frame", "ggplot", "aes(", "geom_", "read.csv", "install.packages", "mutate(", "summarise(", "tibble("],
    "\\b(?:data\\.frame|ggplot|aes|geom_\\w+|read\\.csv|install\\.packages|mutate|summarise|tibble)\\(",
    { R: 5 },
  ),
  s("c(", "\\bc\\(\\s*[-\\d\"']", { R: 4 }),
  s("$", "\\b\\w+\\$[a-zA-Z]\\w*", { R: 2 }),
  s(["TRUE", "FALSE", "NA"], "\\b(?:TRUE|FALSE|NA)\\b", { R: 1 }),
];

const PERL: Signal[] = [
  s("use", "^\\s*use\\s+(?:strict|warnings)\\s*;", { Perl: 7 }),
  s("my", "^\\s*my\\s+[$@%]\\w+", { Perl: 6 }),
  s("sub", "^\\s*sub\\s+\\w+\\s*\\{?\\s*$", { Perl: 6 }),
  s("perl", "^#!.*\\bperl\\b", { Perl: 8 }),
  s("=~", "=~\\s*(?:[ms]|tr|y)?/", { Perl: 4, Ruby: 2 }),
  s(["$_", "@_", "@ARGV", "%ENV", "$ENV{"], "\\$_\\b|@_\\b|@ARGV\\b|%ENV\\b|\\$ENV\\{", { Perl: 4 }),
  s("foreach", "\\bforeach\\s+my\\s+\\$", { Perl: 7 }),
  s("print", '\\bprint\\s+"[^"]*\\\\n"\\s*;', { Perl: 3, PHP: 1 }),
  s(["chomp", "die", "open"], '\\bchomp\\(|\\bdie\\s+"|\\bopen\\s*\\(\\s*my\\s+\\$', { Perl: 6 }),
  s(["->{", "{"], "->\\{\\w+\\}|\\$\\w+\\{['\"]?\\w+['\"]?\\}", { Perl: 5 }),
  s("qw", "\\bqw[(/{]", { Perl: 7 }),
  s(["elsif", "unless"], "^\\s*(?:\\}\\s*)?(?:elsif|unless)\\s*\\(", { Perl: 4 }),
];

const SHELL: Signal[] = [
  s("#!", "^\\s*#!\\s*/(?:usr/)?bin/(?:env\\s+)?(?:ba|z|k|da)?sh\\b", { Shell: 8 }),
  s("$ ", "^\\s*\\$\\s+[a-z]", { Shell: 4 }),
  s(
    ["apt", "yum", "dnf", "brew", "pacman", "apk", "snap"],
    "^\\s*(?:sudo\\s+)?(?:apt(?:-get)?|yum|dnf|brew|pacman|apk|snap)\\s+(?:install|update|upgrade|add|remove|-S)\\b",
    { Shell: 5 },
  ),
  s(
    [
      "npm",
      "npx",
      "yarn",
      "pnpm",
      "pip",
      "poetry",
      "cargo",
      "gem",
      "bundle",
      "composer",
      "mvn",
      "gradle",
      "dotnet",
      "docker",
      "kubectl",
      "helm",
      "terraform",
      "git",
      "curl",
      "wget",
      "cmake",
      "ssh",
      "scp",
      "rsync",
      "tar",
      "unzip",
      "chmod",
      "chown",
      "mkdir",
      "systemctl",
      "sudo",
      "virtualenv",
      "conda",
      "brew",
      "deno",
      "bun",
      "gh ",
      "aws",
      "gcloud",
      "az ",
    ],
    "^\\s*(?:sudo\\s+)?(?:npm|npx|yarn|pnpm|pip|pip3|pipx|poetry|cargo|gem|bundle|composer|mvn|gradle|dotnet|docker|docker-compose|kubectl|helm|terraform|git|curl|wget|cmake|ssh|scp|rsync|tar|unzip|chmod|chown|mkdir|systemctl|sudo|virtualenv|conda|brew|deno|bun|gh|aws|gcloud|az)\\s+[\\w.@/~$\"'-]",
    { Shell: 4 },
  ),
  s(
    ["-", "/", "~", "$", "|", ">", "=", ".", "*"],
    "^\\s*(?:make|cd|ls|cat|grep|sed|awk|find|export|source|echo|touch|rm|cp|mv|go|python|python3|node|java|ruby|perl|php|ln|kill|ps|top|df|du|head|tail|less|sort|wc|which|env|printf)\\s+[^=\\s(].*(?:\\s-{1,2}\\w|[/~$|>=]|\\.\\w|\\s\\*)",
    { Shell: 3 },
  ),
  s("|", "\\|\\s*(?:grep|awk|sed|sort|uniq|wc|head|tail|xargs|tee|cut|tr|jq|less|more|bash|sh)\\b", { Shell: 5 }),
  s(
    ["2>&1", "/dev/null", "$("],
    "2>&1|>\\s*/dev/null|\\$\\((?:cat|pwd|date|which|dirname|basename|git|echo|ls|find|uname|whoami|id|nproc|seq|command)\\b",
    { Shell: 4 },
  ),
  s("${", "\\$\\{[A-Z_][A-Z0-9_]*(?::[-=?+][^}]*)?\\}", { Shell: 3 }),
  s(["fi", "done", "esac"], "^\\s*(?:fi|done|esac)\\s*;?\\s*$", { Shell: 5 }),
  s(["then", "do"], "^\\s*(?:then|do)\\s*$", { Shell: 3 }),
  s("[", "^\\s*(?:if|elif|while)\\s+\\[\\[?\\s", { Shell: 6 }),
  s("do", "^\\s*(?:for|while)\\s+.*;\\s*do\\b", { Shell: 6 }),
  s("=", "^\\s*(?:export\\s+)?[A-Z_][A-Z0-9_]*=(?:\"[^\"]*\"|'[^']*'|[^\\s;]*)\\s*$", { Shell: 3 }),
  s("function", "^\\s*function\\s+[\\w-]+\\s*(?:\\(\\))?\\s*\\{", { Shell: 3, JavaScript: 1 }),
  s(
    ["alias", "unset", "readonly", "local", "declare", "set -"],
    "^\\s*(?:alias\\s+\\w+=|unset\\s+\\w|readonly\\s+\\w|local\\s+\\w+=|declare\\s+-\\w|set\\s+-[euxo]+\\b)",
    { Shell: 5 },
  ),
  s("echo", "^\\s*echo\\s+[\"'$\\w-]", { Shell: 2, PHP: 1 }),
];

const MARKUP: Signal[] = [
  s("<!doctype", "<!doctype\\s+html", { HTML: 9 }, { ci: true }),
  s(
    "<",
    "</?(?:html|head|body|div|span|p|a|ul|ol|li|table|thead|tbody|tr|td|th|h[1-6]|form|input|button|img|script|style|link|meta|nav|section|article|header|footer|main|label|select|option|textarea|br|hr|iframe|strong|em|pre|code|canvas|video|audio|source|title|svg|template)(?:\\s[^<>]*)?/?>",
    { HTML: 3 },
  ),
  s('="', '<\\w[^<>]*\\s(?:class|id|href|src|alt|style|onclick|type|rel|charset|lang|placeholder|name|value)="[^"]*"', {
    HTML: 1,
  }),
  s("<?xml", "<\\?xml\\s", { XML: 9 }),
  s("xmlns", '\\bxmlns(?::\\w+)?="', { XML: 6 }),
  s("<", "<[a-zA-Z][\\w.-]*:[\\w.-]+[\\s>/]", { XML: 3 }),
  s("</", '^\\s*<([A-Za-z][\\w.-]*)(?:\\s+[\\w:.-]+="[^"]*")*\\s*>[^<]*</[A-Za-z][\\w.-]*>\\s*$', { XML: 2 }),
  s("<", '^\\s*</?[a-zA-Z][\\w.-]*(?:\\s+[\\w:.-]+="[^"]*")*\\s*/?>\\s*$', { XML: 1 }),
  s("CDATA", "<!\\[CDATA\\[", { XML: 6 }),
  s(["groupId", "artifactId", "dependency", "<project"], "<(?:groupId|artifactId|dependency|project|modelVersion)>", { XML: 5 }),
  s("<!--", "<!--.*-->|^\\s*<!--", { HTML: 1, XML: 1 }),
];

const CSS: Signal[] = [
  s("{", "^\\s*[.#][\\w-]+(?:[\\s>+~.#:,\\[\\]=\"'()\\w-]*)\\{\\s*$", { CSS: 4 }),
  s(
    "{",
    "^\\s*(?:html|body|div|span|p|a|ul|ol|li|h[1-6]|table|img|button|input|nav|header|footer|section|main|form|label|\\*)(?:[\\s>+~.#:,][\\w\\s>+~.#:,()-]*)?\\{\\s*$",
    { CSS: 4 },
  ),
  s("@", "^\\s*@(?:media|import|keyframes|font-face|supports|charset|layer|tailwind|apply)\\b", { CSS: 6 }),
  s(
    ";",
    "^\\s*(?:color|background(?:-color|-image)?|margin(?:-\\w+)?|padding(?:-\\w+)?|font(?:-\\w+)?|display|position|width|height|max-width|min-width|max-height|min-height|border(?:-\\w+)*|text-align|text-decoration|flex(?:-\\w+)?|grid(?:-\\w+)*|justify-content|align-items|z-index|opacity|transition|transform|box-shadow|line-height|overflow|cursor|top|left|right|bottom|gap|content|animation)\\s*:\\s*[^;]+;\\s*$",
    { CSS: 4 },
  ),
  s("!important", "!important\\s*;", { CSS: 4 }),
  s(["px", "rem", "em", "vh", "vw"], "\\b\\d+(?:\\.\\d+)?(?:px|rem|em|vh|vw)\\b.*;\\s*$", { CSS: 1 }),
  s("#", ":\\s*#[0-9a-fA-F]{3,8}\\s*;", { CSS: 3 }),
  s("--", "^\\s*--[\\w-]+\\s*:\\s*[^;]+;|var\\(--", { CSS: 5 }),
];

const DATA: Signal[] = [
  s('"', '^\\s*"[^"]+"\\s*:\\s*(?:"|-?\\d|true|false|null|\\{|\\[)', { JSON: 1 }),
  s(": ", "^\\s*(?:- )?[a-z_][\\w.-]*:\\s+[^\\s{;,][^;]*$", { YAML: 1 }),
  s(":", "^\\s*(?:- )?[a-z_][\\w.-]*:\\s*$", { YAML: 1 }),
  s("- ", "^\\s*- [\\w\"'.{}$-]", { YAML: 1 }),
  s("---", "^---\\s*$", { YAML: 1 }),
  s(
    ":",
    "^\\s*(?:apiVersion|kind|metadata|spec|services|image|ports|volumes|environment|steps|jobs|runs-on|uses|on|hosts|tasks|become|dependencies|containers|replicas|selector|matchLabels|template|env|command|args|restart|build|depends_on|stages|script|variables|workflow_dispatch|pull_request|push|branches):",
    { YAML: 3 },
  ),
];

const MARKDOWN: Signal[] = [
  s("#", "^#{1,6}\\s+\\S", { Markdown: 1 }, { fencedOnly: true }),
  s(["- ", "* ", "+ ", ". "], "^\\s*(?:[-*+]|\\d+\\.)\\s+\\S", { Markdown: 1 }, { fencedOnly: true }),
  s("](", "\\[[^\\]]+\\]\\([^)\\s]+\\)", { Markdown: 4 }, { fencedOnly: true }),
  s("|", "^\\|.*\\|\\s*$", { Markdown: 1 }, { fencedOnly: true }),
  s("---", "^\\|?\\s*:?-{3,}:?\\s*(?:\\|\\s*:?-{3,}:?\\s*)+\\|?\\s*$", { Markdown: 5 }, { fencedOnly: true }),
  s("**", "\\*\\*\\w[^*]*\\w\\*\\*", { Markdown: 2 }, { fencedOnly: true }),
  s("> ", "^>\\s", { Markdown: 1 }, { fencedOnly: true }),
];

const DOCKERFILE: Signal[] = [
  s("FROM", "^\\s*FROM\\s+(?:--platform=\\S+\\s+)?[\\w./-]+(?::[\\w.-]+|@sha256:[0-9a-f]+)(?:\\s+(?:AS|as)\\s+\\w+)?\\s*$", {
    Dockerfile: 7,
  }),
  s(
    "FROM",
    "^\\s*FROM\\s+(?:scratch|alpine|ubuntu|debian|node|python|golang|nginx|busybox|centos|fedora|openjdk|eclipse-temurin|ruby|php|rust|mcr\\.microsoft\\.com)\\b",
    { Dockerfile: 7 },
  ),
  s(
    [
      "RUN",
      "CMD",
      "ENTRYPOINT",
      "COPY",
      "ADD",
      "WORKDIR",
      "EXPOSE",
      "ENV",
      "ARG",
      "LABEL",
      "USER",
      "VOLUME",
      "HEALTHCHECK",
      "ONBUILD",
      "STOPSIGNAL",
      "SHELL",
    ],
    "^\\s*(?:RUN|CMD|ENTRYPOINT|COPY|ADD|WORKDIR|EXPOSE|ENV|ARG|LABEL|USER|VOLUME|HEALTHCHECK|ONBUILD|STOPSIGNAL|SHELL)\\s+\\S",
    { Dockerfile: 3 },
  ),
  s(["CMD", "ENTRYPOINT", "RUN"], '^\\s*(?:CMD|ENTRYPOINT|RUN)\\s+\\[\\s*"', { Dockerfile: 5 }),
];

/** Every signal. */
export const SIGNALS: readonly Signal[] = [
  ...SQL,
  ...PYTHON,
  ...JS_TS,
  ...JAVA,
  ...CSHARP,
  ...C_CPP,
  ...RUBY,
  ...PHP,
  ...SWIFT,
  ...KOTLIN,
  ...SCALA,
  ...GO,
  ...RUST,
  ...R,
  ...PERL,
  ...SHELL,
  ...MARKUP,
  ...CSS,
  ...DATA,
  ...MARKDOWN,
  ...DOCKERFILE,
];
