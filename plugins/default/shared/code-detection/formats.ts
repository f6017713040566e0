/**
 * The code formats `containsCode` knows (the list REFERENCE.md gives for the `format` parameter)
 * and the fence tags and names that map to each, compared case-insensitively.
 */

/** Canonical names, as configs write them. */
export const CODE_FORMATS = [
  "SQL",
  "Python",
  "TypeScript",
  "JavaScript",
  "Java",
  "C#",
  "C++",
  "C",
  "Ruby",
  "PHP",
  "Swift",
  "Kotlin",
  "Go",
  "Rust",
  "Scala",
  "R",
  "Perl",
  "Shell",
  "HTML",
  "CSS",
  "XML",
  "JSON",
  "YAML",
  "Markdown",
  "Dockerfile",
] as const;

/** A code format. */
export type CodeFormat = (typeof CODE_FORMATS)[number];

/** Fence tags and other names of each format, besides its canonical name (all lower case). */
const ALIASES: Record<CodeFormat, readonly string[]> = {
  SQL: ["mysql", "postgresql", "postgres", "psql", "pgsql", "plsql", "plpgsql", "sqlite", "tsql", "mssql", "mariadb"],
  Python: ["py", "python3", "py3", "python2", "ipython", "pycon", "pyi", "gyp"],
  TypeScript: ["ts", "tsx", "mts", "cts"],
  JavaScript: ["js", "jsx", "mjs", "cjs", "node", "nodejs", "es6", "ecmascript"],
  Java: ["jsh"],
  "C#": ["cs", "csharp", "c-sharp", "dotnet"],
  "C++": ["cpp", "cxx", "cc", "hpp", "hxx", "h++", "cplusplus"],
  C: ["h", "ansic"],
  Ruby: ["rb", "jruby", "rake", "gemspec", "podspec"],
  PHP: ["php3", "php4", "php5", "php7", "php8", "phtml"],
  Swift: [],
  Kotlin: ["kt", "kts"],
  Go: ["golang"],
  Rust: ["rs"],
  Scala: ["sc", "sbt"],
  R: ["rscript", "rlang", "splus"],
  Perl: ["pl", "pm", "perl5"],
  Shell: ["sh", "bash", "zsh", "ksh", "fish", "dash", "console", "shell-session", "shellsession", "terminal", "shellscript"],
  HTML: ["htm", "xhtml", "html5"],
  CSS: ["scss", "less"],
  XML: ["xsd", "xsl", "xslt", "svg", "rss", "atom", "plist", "wsdl", "xaml", "pom"],
  JSON: ["jsonc", "json5", "jsonl", "ndjson", "geojson"],
  YAML: ["yml"],
  Markdown: ["md", "mdown", "mkd", "mdx"],
  Dockerfile: ["docker", "containerfile"],
};

const BY_NAME = new Map<string, CodeFormat>();
for (const format of CODE_FORMATS) {
  BY_NAME.set(format.toLowerCase(), format);
  for (const alias of ALIASES[format]) BY_NAME.set(alias, format);
}

/** The format a name or fence tag stands for (case-insensitive, aliases included), if any. */
export function formatNamed(name: string): CodeFormat | undefined {
  return BY_NAME.get(name.trim().toLowerCase());
}

/** The aliases of a format, for the docs. */
export function aliasesOf(format: CodeFormat): readonly string[] {
  return ALIASES[format];
}

/**
 * Fence tags that say "not code in any language" (`text`, `output`); such blocks are judged by
 * their content, like untagged ones.
 */
export const PLAIN_TAGS: ReadonlySet<string> = new Set([
  "",
  "text",
  "txt",
  "plain",
  "plaintext",
  "output",
  "log",
  "none",
  "nohighlight",
  "raw",
]);
