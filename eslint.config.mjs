import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

// Module boundaries that really constrain (STYLE.md): every project is tagged scope:<…> and
// type:<…>; apps never import apps; the contracts lib stays free of frameworks and drivers.
const serviceScopes = ['bots', 'knowledge', 'chat', 'leads', 'bookings'];

function boundaries({ testFiles }) {
  // Test files of any project may use the testing lib; production code of libs may not.
  const testing = testFiles ? ['type:testing'] : [];
  return [
    'error',
    {
      enforceBuildableLibDependency: false,
      allowCircularSelfDependency: false,
      banTransitiveDependencies: false,
      depConstraints: [
        { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:contracts', 'type:util', 'type:data-access', ...testing] },
        { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:contracts', 'type:util', 'type:data-access', 'type:testing'] },
        { sourceTag: 'type:data-access', onlyDependOnLibsWithTags: ['type:contracts', 'type:util', 'type:data-access', ...testing] },
        { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:contracts', 'type:util', 'type:data-access', 'type:testing'] },
        { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:contracts', 'type:util', ...testing] },
        {
          sourceTag: 'type:contracts',
          onlyDependOnLibsWithTags: ['type:contracts', ...testing],
          bannedExternalImports: ['@nestjs/*', 'typeorm', 'pg', 'nats', 'ioredis', '@qdrant/*', 'langchain', '@langchain/*', '@modelcontextprotocol/*', 'fastify'],
        },
        { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
        { sourceTag: 'scope:identity', onlyDependOnLibsWithTags: ['scope:shared', 'scope:identity'] },
        // The public edges (REST gateway, MCP server) share auth, rate limits and chat turns (libs/edge).
        { sourceTag: 'scope:edge', onlyDependOnLibsWithTags: ['scope:shared', 'scope:identity'] },
        { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:shared', 'scope:identity', 'scope:edge'] },
        { sourceTag: 'scope:mcp', onlyDependOnLibsWithTags: ['scope:shared', 'scope:identity', 'scope:edge'] },
        { sourceTag: 'scope:tools', onlyDependOnLibsWithTags: ['scope:shared', 'scope:identity', 'scope:webhooks', 'scope:people'] },
        // People, roles, sessions and the audit log (libs/people): the console and the admin CLI.
        { sourceTag: 'scope:people', onlyDependOnLibsWithTags: ['scope:shared'] },
        // The owner console: its people, the pure parts of identity (entitlements, live access) and the edge's HTTP pieces.
        { sourceTag: 'scope:console', onlyDependOnLibsWithTags: ['scope:shared', 'scope:identity', 'scope:edge', 'scope:people'] },
        // Webhook registrations (libs/webhook-registry) are read by the dispatcher and the admin
        // CLI; both need the workspace's plan (spec part 1 rule 4) without a caller context.
        { sourceTag: 'scope:webhooks', onlyDependOnLibsWithTags: ['scope:shared', 'scope:identity'] },
        { sourceTag: 'scope:webhook-dispatcher', onlyDependOnLibsWithTags: ['scope:shared', 'scope:identity', 'scope:webhooks'] },
        // Evaluations (issue 33) answer their cases through the real chat path, as the edges do (libs/edge's startChatTurn).
        { sourceTag: 'scope:evaluations', onlyDependOnLibsWithTags: ['scope:shared', 'scope:identity', 'scope:edge'] },
        // Channels (issue 35) answer inbound messages through the real chat path (libs/edge's startChatTurn) and read the workspace's plan (libs/identity's entitlements).
        { sourceTag: 'scope:channels', onlyDependOnLibsWithTags: ['scope:shared', 'scope:identity', 'scope:edge'] },
        // Secrets sealed at rest (widget identity secrets, model keys) use @sa/secret-box, which is shared.
        ...serviceScopes.map((s) => ({ sourceTag: `scope:${s}`, onlyDependOnLibsWithTags: ['scope:shared'] })),
      ],
    },
  ];
}

export default [
  { ignores: ['dist/**', '**/dist/**', 'node_modules/**', 'coverage/**', '**/*.js', '**/*.cjs', '**/*.mjs', 'tmp/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    rules: {
      '@nx/enforce-module-boundaries': boundaries({ testFiles: false }),
      'no-console': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    // The console's web application: user text is always rendered as text (STYLE.md, "Browser code").
    files: ['apps/console/web/**/*.ts', 'apps/console/web/**/*.tsx', 'apps/widget/**/*.ts', 'apps/widget/**/*.tsx'],
    rules: {
      'no-console': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        { selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']", message: 'Render user text as text: no dangerouslySetInnerHTML.' },
        { selector: "MemberExpression[property.name=/^(innerHTML|outerHTML)$/]", message: 'Render user text as text: no innerHTML.' },
        { selector: "CallExpression[callee.property.name='insertAdjacentHTML']", message: 'Render user text as text: no insertAdjacentHTML.' },
      ],
    },
  },
  {
    // The visitor widget runs on other people's pages under their CSP: no eval of any kind.
    files: ['apps/widget/**/*.ts', 'apps/widget/**/*.tsx'],
    rules: { 'no-eval': 'error', 'no-implied-eval': 'error', 'no-new-func': 'error' },
  },
  {
    files: ['**/*.spec.ts', '**/*.int-spec.ts', 'e2e/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': boundaries({ testFiles: true }),
      'no-console': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
];
