/**
 * What may come next on a `syncline` command line: the answer of `syncline __complete WORDS…`,
 * which the shell scripts (completion-scripts.ts) ask on every Tab. Commands, options and their
 * fixed values are read from the commander program itself, so completion cannot drift from the
 * command line; the ids a few arguments take are read from the definitions (definition-ids.ts).
 *
 * `words` are the words after `syncline`, the last one the word being completed (empty when the
 * cursor stands after a space).
 */
import { type Command, Help, type Option } from 'commander';
import { definitionIds, type IdKind } from './definition-ids.js';

/** Arguments and options whose values are definition ids: `command path` + ` <argument>` or ` --option`. */
export const idValues: Readonly<Record<string, readonly IdKind[]>> = {
  'run <id>': ['Sync', 'Flow'],
  'discover <system>': ['System'],
  'webhook test <id>': ['Webhook'],
  'webhook new --sync': ['Sync'],
};

export interface Completion {
  candidates: string[];
  /** File and directory names fit here too (the shell completes them itself). */
  files: boolean;
}

export interface CompletionContext {
  /** The definitions directory when the line does not name one with --definitions. */
  definitions: string;
}

const help = new Help();

export async function completeWords(program: Command, words: readonly string[], context: CompletionContext): Promise<Completion> {
  const current = words.at(-1) ?? '';
  let command = program;
  const path: string[] = [];
  let positional = 0;
  let expecting: Option | undefined;
  let definitions = context.definitions;
  for (const word of words.slice(0, -1)) {
    if (expecting !== undefined) {
      if (expecting.long === '--definitions') definitions = word;
      expecting = undefined;
    } else if (word.startsWith('--') && word.includes('=')) {
      const [flag, ...value] = word.split('=');
      if (flag === '--definitions') definitions = value.join('=');
    } else if (word.startsWith('-') && word !== '-') {
      const option = findOption(command, word);
      if (option?.required || option?.optional) expecting = option;
    } else {
      const sub = positional === 0 ? command.commands.find((c) => c.name() === word || c.aliases().includes(word)) : undefined;
      if (sub !== undefined) {
        command = sub;
        path.push(word);
      } else {
        positional += 1;
      }
    }
  }

  const finish = async (values: readonly string[], files = false): Promise<Completion> => ({
    candidates: values.filter((value) => value.startsWith(current)),
    files,
  });
  const ids = (key: string) => {
    const kinds = idValues[key];
    return kinds === undefined ? undefined : definitionIds(definitions, kinds);
  };

  if (expecting !== undefined) {
    const key = `${path.join(' ')} ${expecting.long}`;
    if (expecting.argChoices !== undefined) return finish(expecting.argChoices);
    const known = ids(key);
    if (known !== undefined) return finish(await known);
    return finish([], takesPath(expecting.flags));
  }
  if (current.startsWith('-')) {
    const options = help.visibleOptions(command).flatMap((option) => (option.long === undefined ? [] : [option.long]));
    return finish(options);
  }
  const commands = help.visibleCommands(command).map((c) => c.name());
  if (commands.length > 0 && positional === 0) return finish(commands);
  const declared = command.registeredArguments;
  const argument = declared[positional] ?? (declared.at(-1)?.variadic ? declared.at(-1) : undefined);
  if (argument === undefined) return finish([]);
  if (argument.argChoices !== undefined) return finish(argument.argChoices);
  const known = ids(`${path.join(' ')} <${argument.name()}>`);
  if (known !== undefined) return finish(await known);
  return finish([], takesPath(`<${argument.name()}>`));
}

function findOption(command: Command, word: string): Option | undefined {
  return help.visibleOptions(command).find((option) => option.long === word || option.short === word);
}

/** Values named <dir>, <file> or <dir...> are paths: the shell completes them. */
function takesPath(flags: string): boolean {
  return /<(dir|file)(\.\.\.)?>/.test(flags);
}
