package io.rafestore.cli;

import io.rafestore.RafeStore;
import io.rafestore.config.StoreConfig;
import java.util.Map;
import picocli.CommandLine.Command;
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

  @Override
  void prepare(StoreConfig config) throws UsageException {
    requireWriter(config, "rm");
  }

  @Override
  int run(RafeStore store, StoreConfig config) throws Exception {
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
