/**
 * A module as another n8n process loads it: its own module state (claims, kept ids), sharing only what the test
 * passes it. `load` must require the module itself, e.g. `() => jest.requireActual<typeof import('…')>('…')`.
 */
export function loadedInAnotherProcess<T>(load: () => T): T {
	let loaded: { module: T } | undefined;
	jest.isolateModules(() => {
		loaded = { module: load() };
	});
	return loaded!.module;
}
