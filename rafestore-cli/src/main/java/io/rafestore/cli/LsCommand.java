package io.rafestore.cli;

import io.rafestore.RafeStore;
import io.rafestore.VersionInfo;
import io.rafestore.config.StoreConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code rafestore ls [PREFIX] [-l]}: lists the live keys under a prefix with their size. */
@Command(
    name = "ls",
    description = {
      "Lists the keys under PREFIX (every key if none), one per line: SIZE KEY, or with -l"
          + " SIZE TIME VERSION KEY (the newest version's signed metadata).",
      "Costs one key listing per 1000 keys and one metadata read per key; no value is fetched."
    })
final class LsCommand extends StoreCommand {
  @Parameters(
      index = "0",
      arity = "0..1",
      paramLabel = "PREFIX",
      description = "Only keys starting with PREFIX.")
  String prefix = "";

  @Option(
      names = {"-l", "--long"},
      description = "Also print the creation time and version.")
  boolean longFormat;

  @Override
  int run(RafeStore store, StoreConfig config) throws Exception {
    Listing.walk(
        store,
        prefix,
        page -> {
          for (VersionInfo v : page) {
            if (longFormat) {
              out().printf("%12d %-24s %-28s %s%n", v.size(), v.createdAt(), v.version(), v.key());
            } else {
              out().printf("%12d %s%n", v.size(), v.key());
            }
          }
          out().flush();
        });
    return ExitCodes.OK;
  }
}
