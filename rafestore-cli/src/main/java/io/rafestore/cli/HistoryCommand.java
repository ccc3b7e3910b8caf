package io.rafestore.cli;

import io.rafestore.HistoryPage;
import io.rafestore.RafeStore;
import io.rafestore.Version;
import io.rafestore.VersionInfo;
import io.rafestore.config.StoreConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code rafestore history KEY [--limit N]}: lists a key's versions, newest first. */
@Command(name = "history", description = "Lists the versions of KEY, newest first.")
final class HistoryCommand extends StoreCommand {
  /** The largest page the client serves in one call. */
  private static final int MAX_PAGE = 10_000;

  @Parameters(index = "0", paramLabel = "KEY", description = "The key.")
  String key;

  @Option(
      names = {"-n", "--limit"},
      paramLabel = "N",
      defaultValue = "20",
      description = "List at most N versions (default ${DEFAULT-VALUE}, 1 to 1000000).")
  int limit;

  @Override
  void prepare(StoreConfig config) throws UsageException {
    if (limit < 1 || limit > 1_000_000) {
      throw new UsageException("--limit must be between 1 and 1000000, was " + limit);
    }
  }

  @Override
  int run(RafeStore store, StoreConfig config) throws Exception {
    List<VersionInfo> versions = new ArrayList<>();
    Optional<Version> before = Optional.empty();
    boolean more;
    while (true) {
      int want = Math.min(MAX_PAGE, limit - versions.size());
      HistoryPage page = store.blocking().history(key, before, want);
      versions.addAll(page.versions());
      before = page.nextBefore();
      if (before.isEmpty()) {
        more = false;
        break;
      }
      if (versions.size() >= limit) {
        more = true;
        break;
      }
    }
    if (json()) {
      Map<String, Object> o = Json.object();
      o.put("key", key);
      List<Object> list = new ArrayList<>();
      for (VersionInfo v : versions) {
        list.add(describe(v));
      }
      o.put("versions", list);
      o.put("more", more);
      printJson(o);
    } else if (versions.isEmpty()) {
      out().printf("%s: no versions%n", key);
    } else {
      out().printf("%-24s %12s  %-16s %-24s %s%n", "VERSION", "SIZE", "SHA256", "CREATED", "DATA");
      for (VersionInfo v : versions) {
        out()
            .printf(
                "%-24s %12d  %-16s %-24s %s%n",
                v.version(),
                v.size(),
                v.sha256Hex().substring(0, 16),
                v.createdAt(),
                String.join(",", v.dataClouds()));
      }
      if (more) {
        out().printf("(more versions: raise --limit)%n");
      }
    }
    return ExitCodes.OK;
  }
}
