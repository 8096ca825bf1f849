/**
 * The names of the environment variables `load` reads from an empty environment, each once,
 * sorted: every name it looks up, whatever it makes of the (unset) value.
 */
export function variablesRead(load: (env: Readonly<Record<string, string | undefined>>) => unknown): string[] {
  const names = new Set<string>();
  const env = new Proxy<Record<string, string | undefined>>(
    {},
    {
      get: (target, name) => {
        if (typeof name === 'string') names.add(name);
        return Reflect.get(target, name);
      },
    },
  );
  load(env);
  return [...names].sort();
}
