// Type-aware lint for an async server: the bugs to catch are promises nobody awaits or handles
// (no-floating-promises) and promises passed where a plain value or void callback is expected
// (no-misused-promises). Formatting is prettier's job, not this file's.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "test/fixtures/**", "**/*.js", "**/*.mjs", "**/*.cjs"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: "off" },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      // Wire data from providers and MCP is read field by field through `any` on purpose.
      "@typescript-eslint/no-explicit-any": "off",
      // tsc's noUnusedLocals/Parameters already report these.
      "@typescript-eslint/no-unused-vars": "off",
      // Control characters in regexes are deliberate here (terminal output, JSON scanning).
      "no-control-regex": "off",
    },
  },
  {
    // Generators that throw before yielding and literal-space patterns are deliberate in tests.
    files: ["test/**/*.ts", "bench/**/*.ts"],
    rules: {
      "require-yield": "off",
      "no-regex-spaces": "off",
    },
  },
);
