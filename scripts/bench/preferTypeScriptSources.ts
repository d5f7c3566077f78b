import fs from 'node:fs';
import Module from 'node:module';
import path from 'node:path';

/**
 * Under tsx, `import './Messaging.node'` resolves to the codex file `Messaging.node.json` (Node tries
 * `.json` before `.ts`), so the node class comes back undefined. Jest prefers `.ts`; this makes the
 * benchmark resolve `*.node` imports the same way. Import it before anything that loads the node.
 */
type ResolveFilename = (
	this: unknown,
	request: string,
	parent: NodeJS.Module | undefined,
	...rest: unknown[]
) => string;

const moduleInternals = Module as unknown as { _resolveFilename: ResolveFilename };
const resolveFilename = moduleInternals._resolveFilename;

moduleInternals._resolveFilename = function resolvePreferringTypeScript(request, parent, ...rest) {
	if (request.startsWith('.') && request.endsWith('.node') && parent?.filename) {
		const source = path.resolve(path.dirname(parent.filename), `${request}.ts`);
		if (fs.existsSync(source)) return source;
	}
	return resolveFilename.call(this, request, parent, ...rest);
};
