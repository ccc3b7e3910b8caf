package io.rafestore.cli;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code rafestore completion bash}: prints the shell completion script (picocli's {@link
 * AutoComplete}), which bash and zsh (with {@code bashcompinit}) load.
 */
@Command(
    name = "completion",
    description = {
      "Prints a shell completion script for rafestore. Load it in the current shell with",
      "  source <(rafestore completion bash)",
      "or install it, e.g. rafestore completion bash > ~/.local/share/bash-completion/completions/"
          + "rafestore. zsh: run 'autoload -U +X bashcompinit && bashcompinit' first."
    })
final class CompletionCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(
      index = "0",
      arity = "0..1",
      paramLabel = "SHELL",
      description = "bash (default; the script also serves zsh through bashcompinit).")
  String shell = "bash";

  @Override
  public Integer call() throws Exception {
    if (!shell.equals("bash") && !shell.equals("zsh")) {
      throw new UsageException("completion: SHELL must be bash or zsh, was '" + shell + "'");
    }
    spec.commandLine().getOut().print(AutoComplete.bash("rafestore", spec.root().commandLine()));
    spec.commandLine().getOut().flush();
    return ExitCodes.OK;
  }
}
