package io.rafestore.cli;

import io.rafestore.RafeStore;
import io.rafestore.VersionInfo;
import io.rafestore.config.StoreConfig;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code rafestore lsjson [PREFIX]}: the live keys under a prefix as a JSON array, one object per
 * line, with the newest version's signed metadata.
 */
@Command(
    name = "lsjson",
    description = {
      "Lists the keys under PREFIX (every key if none) as a JSON array, one object per line:"
          + " key, size, version, writer, time (the writer's creation time), sha256.",
      "Costs one key listing per 1000 keys and one metadata read per key; no value is fetched."
    })
final class LsJsonCommand extends StoreCommand {
  @Parameters(
      index = "0",
      arity = "0..1",
      paramLabel = "PREFIX",
      description = "Only keys starting with PREFIX.")
  String prefix = "";

  @Override
  int run(RafeStore store, StoreConfig config) throws Exception {
    out().print("[");
    boolean[] first = {true};
    Listing.walk(
        store,
        prefix,
        page -> {
          for (VersionInfo v : page) {
            Map<String, Object> o = Json.object();
            o.put("key", v.key());
            o.put("size", v.size());
            o.put("version", v.version().toString());
            o.put("writer", v.version().writer());
            o.put("time", v.createdAt().toString());
            o.put("sha256", v.sha256Hex());
            out().print((first[0] ? "\n" : ",\n") + Json.write(o));
            first[0] = false;
          }
          out().flush();
        });
    out().print("\n]\n");
    return ExitCodes.OK;
  }
}
