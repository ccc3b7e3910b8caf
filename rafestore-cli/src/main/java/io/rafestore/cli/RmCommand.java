package io.rafestore.cli;

import io.rafestore.RafeStore;
import io.rafestore.VersionInfo;
import io.rafestore.config.StoreConfig;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code rafestore rm KEY}: deletes a key. */
@Command(
    name = "rm",
    description = {
      "Deletes KEY: a signed tombstone hides every version from readers, then the values are"
          + " removed from the clouds. A later put starts a new history."
    })
final class RmCommand extends StoreCommand {
  @Parameters(index = "0", paramLabel = "KEY", description = "The key.")
  String key;

  @Option(
      names = {"-n", "--dry-run"},
      description = "Print what would be deleted; change nothing.")
  boolean dryRun;

  @Override
  void prepare(StoreConfig config) throws UsageException {
    requireWriter(config, "rm");
  }

  @Override
  int run(RafeStore store, StoreConfig config) throws Exception {
    if (dryRun) {
      List<VersionInfo> versions = StoreCommand.allVersions(store, key);
      if (json()) {
        Map<String, Object> o = Json.object();
        o.put("key", key);
        o.put("deleted", false);
        o.put("dryRun", true);
        o.put("versions", versions.size());
        printJson(o);
      } else if (versions.isEmpty()) {
        out().printf("rm %s: no versions, nothing to delete (dry run)%n", key);
      } else {
        out()
            .printf(
                "rm %s: would delete %d version%s, newest %s (dry run)%n",
                key, versions.size(), versions.size() == 1 ? "" : "s", versions.get(0).version());
      }
      return ExitCodes.OK;
    }
    store.blocking().delete(key);
    if (json()) {
      Map<String, Object> o = Json.object();
      o.put("key", key);
      o.put("deleted", true);
      printJson(o);
    } else {
      out().printf("rm %s: deleted%n", key);
    }
    return ExitCodes.OK;
  }
}
