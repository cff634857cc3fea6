// Three suites: unit tests beside the code (*.spec.ts), integration tests against the real
// PostgreSQL and NATS (*.int-spec.ts), and end-to-end tests that start the real apps (e2e/).
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];

const moduleNameMapper = {
  '^@sa/(.*)$': '<rootDir>/libs/$1/src/index.ts',
  // The publishable webhooks package, as the SDK imports it.
  '^@support-agent/webhooks$': '<rootDir>/libs/webhooks/src/index.ts',
};

const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper,
  // Relative `./x.js` imports of our TypeScript sources (the publishable packages use them) find x.ts.
  resolver: '<rootDir>/tools/jest/resolver.js',
  moduleFileExtensions: ['ts', 'js', 'json'],
  modulePathIgnorePatterns: ['<rootDir>/dist/', '<rootDir>/libs/[^/]+/dist/'],
  // The console's web application (browser code, JSX) is tested in a real browser (e2e/console).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/apps/console/web/'],
};

module.exports = {
  // Integration and e2e tests talk to real services; unit tests finish far inside this.
  testTimeout: 60000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,tools}/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/{apps,libs,tools}/**/*.int-spec.ts'],
      globalSetup: '<rootDir>/libs/testing/src/integration/global-setup.ts',
      globalTeardown: '<rootDir>/libs/testing/src/integration/global-teardown.ts',
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/e2e/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/e2e/support/global-setup.ts',
      globalTeardown: '<rootDir>/e2e/support/global-teardown.ts',
    },
  ],
};
