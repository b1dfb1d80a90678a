/**
 * The gate's verdict on a project file the agent reads into the prompt with no dialog (memory, subagent
 * definitions): undefined when it may be read, else why not. Loaders sit below the gate, so the
 * composition root hands them `projectFileRefusal` from gate/project-file.ts.
 */
export type ProjectFileCheck = (facts: { real: string; projectRoot: string; hardLinks: number }) => string | undefined;
