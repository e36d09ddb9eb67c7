// The few rules that matter here (the type check covers the rest): unused variables, 140-character lines, and in
// the product's code no file over 400 lines and no function over 80 (blank lines and comments not counted).
// Long strings and template literals are allowed: they are messages and HTML whose wrapping would change them.
export default [
  { ignores: ['node_modules/', 'results/', 'media/cache/'] },
  {
    files: ['**/*.js'],
    languageOptions: { ecmaVersion: 2024, sourceType: 'module' },
    rules: {
      'no-unused-vars': ['error', { args: 'after-used', argsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      'max-len': ['error', { code: 140, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true }],
    },
  },
  {
    files: ['orchestrator/**/*.js', 'signaling/**/*.js', 'client-app/**/*.js', 'media/**/*.js', 'bench/**/*.js'],
    rules: {
      'max-lines': ['error', { max: 400 }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' } },
];
