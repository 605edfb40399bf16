// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['node_modules/**', '.data/**', 'dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  {
    // The dashboard's script runs in the browser, beside uPlot's global.
    files: ['src/http/dashboard/**'],
    languageOptions: { globals: { ...globals.browser, uPlot: 'readonly' } },
  },
  {
    files: ['src/cli/**', 'bench/**', 'test/**'],
    rules: { 'no-console': 'off' },
  },
);
