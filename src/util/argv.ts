/** Flags of a command line, read as argparse reads them. */

/** The value of `--name VALUE` or `--name=VALUE` (the last one given). */
export function flagValue(args: readonly string[], ...names: string[]): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < args.length; i++) {
    for (const name of names) {
      if (args[i] === name && i + 1 < args.length) value = args[i + 1];
      else if (args[i]!.startsWith(`${name}=`)) value = args[i]!.slice(name.length + 1);
    }
  }
  return value;
}

/** Every value of `--name VALUE`. */
export function flagValues(args: readonly string[], name: string): string[] {
  return args.flatMap((a, i) => (a === name && i + 1 < args.length ? [args[i + 1]!] : []));
}
