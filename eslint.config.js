// Lint: typescript-eslint's type-checked recommended rules on everything we write; layout is
// prettier's (eslint-config-prettier turns off the rules it owns). Run by `npm test` (npm run lint).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'dist-bench/',
      'dist-tools/',
      'node_modules/',
      '.tmp/',
      'coverage/',
      'grafana/',
      'config/schema.json',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: ['*.js', '*.ts', 'scripts/*.mjs', 'test/fixtures/*.mjs', 'test/fixtures/*/*.mjs'],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // Contexts are plain objects of closures (ctx.snapshot, deps.sleep) typed as methods; the rule
      // cannot tell them from class methods that need `this`.
      '@typescript-eslint/unbound-method': 'off',
      // Async implementations of Promise-returning interfaces (a sleep that resolves at once in a test).
      '@typescript-eslint/require-await': 'off',
      // Control characters are matched on purpose: they are stripped from text shown to people.
      'no-control-regex': 'off',
      // `_name` marks a binding kept on purpose (a destructured part left out, an unused callback argument).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          caughtErrors: 'none',
        },
      ],
    },
  },
  {
    // Tests read JSON answers of real servers (`any` by nature).
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      // Browser-side callbacks (page.waitForFunction) see the page's untyped globals.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  { files: ['**/*.js', '**/*.mjs'], languageOptions: { globals: globals.node } },
  prettier,
  {
    // Prettier wraps code at 120 columns but leaves strings and comments as written: those are held
    // to 120 here. Regular expressions and URLs are exempt, and a JSON fixture written as a server
    // sends it (a line that opens a JSON literal: `{"` or `[{"`), which reads best whole.
    rules: {
      'max-len': [
        'error',
        {
          code: 120,
          tabWidth: 2,
          ignoreUrls: true,
          ignoreRegExpLiterals: true,
          ignorePattern: String.raw`^\s*(?:[\w[\]]+: )?['\x60]\[?\{"`,
        },
      ],
    },
  },
);
