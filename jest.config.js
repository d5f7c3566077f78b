/** Unit, sandbox and workflow tests. The real-n8n end-to-end suite runs separately (npm run test:e2e). */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/'],
	testTimeout: 30000,
	setupFiles: ['<rootDir>/test/helpers/quietN8nLogger.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
};
