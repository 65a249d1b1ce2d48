/**
 * The completion scripts `syncline completion bash|zsh|fish` prints. Each is a thin shim: on Tab
 * it hands the words typed so far to `syncline __complete -- WORDS…` (complete-words.ts) and
 * offers the lines that come back; a line `:files` asks the shell to complete file names as well.
 * The shim knows nothing of the commands, so it never needs regenerating when they change.
 *
 * Install (docs/cli.md#shell-completion):
 *   bash  eval "$(syncline completion bash)"              in ~/.bashrc
 *   zsh   syncline completion zsh > "${fpath[1]}/_syncline" (or source <(syncline completion zsh) after compinit)
 *   fish  syncline completion fish > ~/.config/fish/completions/syncline.fish
 */

export const completionShells = ['bash', 'zsh', 'fish'] as const;

export type CompletionShell = (typeof completionShells)[number];

const bash = `# syncline completion for bash. Install: eval "$(syncline completion bash)" in ~/.bashrc
_syncline_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  local IFS=$'\\n'
  local answer line files=0
  local -a candidates=()
  answer=$(syncline __complete -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) || return 0
  for line in $answer; do
    if [[ $line == ":files" ]]; then files=1; else candidates+=("$line"); fi
  done
  COMPREPLY=()
  if (( \${#candidates[@]} )); then COMPREPLY=($(compgen -W "\${candidates[*]}" -- "$cur")); fi
  if (( files )); then COMPREPLY+=($(compgen -f -- "$cur")); fi
  return 0
}
complete -o filenames -F _syncline_complete syncline
`;

const zsh = `#compdef syncline
# syncline completion for zsh. Install: syncline completion zsh > "\${fpath[1]}/_syncline", then compinit
# (or: source <(syncline completion zsh) in ~/.zshrc, after compinit).
_syncline() {
  local line
  local -a candidates
  local files=0
  for line in "\${(@f)$(syncline __complete -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}"; do
    if [[ $line == ":files" ]]; then files=1; elif [[ -n $line ]]; then candidates+=("$line"); fi
  done
  (( \${#candidates} )) && compadd -- "\${candidates[@]}"
  (( files )) && _files
  return 0
}
if [[ "\${funcstack[1]}" == "_syncline" ]]; then
  _syncline "$@"
else
  compdef _syncline syncline
fi
`;

const fish = `# syncline completion for fish. Install: syncline completion fish > ~/.config/fish/completions/syncline.fish
function __syncline_complete
    set -l words (commandline -opc)
    set -e words[1]
    set -l current (commandline -ct)
    for line in (syncline __complete -- $words "$current" 2>/dev/null)
        if test "$line" = ":files"
            __fish_complete_path "$current"
        else
            echo $line
        end
    end
end
complete -c syncline -f -a '(__syncline_complete)'
`;

const scripts: Record<CompletionShell, string> = { bash, zsh, fish };

export function completionScript(shell: CompletionShell): string {
  return scripts[shell];
}
