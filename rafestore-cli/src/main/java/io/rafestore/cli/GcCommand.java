package io.rafestore.cli;

import io.rafestore.CollectionReport;
import io.rafestore.OrphanReport;
import io.rafestore.RafeStore;
import io.rafestore.RetentionPolicy;
import io.rafestore.Version;
import io.rafestore.VersionInfo;
import io.rafestore.config.StoreConfig;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code rafestore gc KEY... [--keep-last N] [--keep-newer-than INSTANT] [--orphans GRACE]}:
 * collects old versions of each key (a signed watermark, compacted logs, then the data objects
 * deleted from every cloud) and, with {@code --orphans}, deletes data objects that no log names and
 * that are older than the grace period (left by writers that crashed).
 */
@Command(
    name = "gc",
    description = {
      "Collects old versions of KEY: keeps the newest N (--keep-last) and/or those created since",
      "an instant (--keep-newer-than; a version is kept if any rule keeps it), compacts the",
      "signed metadata and deletes the data from every cloud. --orphans GRACE also deletes data",
      "objects no log names (crashed writers' leftovers) once unseen for GRACE (e.g. PT1H)."
    })
final class GcCommand extends StoreCommand {
  @Parameters(paramLabel = "KEY", arity = "1..*", description = "Keys to collect.")
  List<String> keys = new ArrayList<>();

  @Option(names = "--keep-last", paramLabel = "N", description = "Keep the newest N versions.")
  Integer keepLast;

  @Option(
      names = "--keep-newer-than",
      paramLabel = "INSTANT",
      description = "Keep versions created at or after INSTANT (ISO-8601, e.g. 2026-11-01T00:00Z).")
  String keepNewerThan;

  @Option(
      names = "--orphans",
      paramLabel = "GRACE",
      description = "Also delete unreferenced data objects unseen for GRACE (ISO-8601 duration).")
  String orphans;

  @Option(
      names = {"-n", "--dry-run"},
      description =
          "Print which versions would be collected; change nothing (orphans are not looked for).")
  boolean dryRun;

  private RetentionPolicy policy;
  private Duration grace;

  @Override
  void prepare(StoreConfig config) throws UsageException {
    requireWriter(config, "gc");
    if (keepLast == null && keepNewerThan == null && orphans == null) {
      throw new UsageException("gc: give --keep-last, --keep-newer-than and/or --orphans");
    }
    try {
      if (keepLast != null) {
        policy = RetentionPolicy.keepLast(keepLast);
      }
      if (keepNewerThan != null) {
        Instant cutoff = Instant.parse(keepNewerThan);
        policy =
            policy == null
                ? RetentionPolicy.keepNewerThan(cutoff)
                : policy.andKeepNewerThan(cutoff);
      }
      if (orphans != null) {
        grace = Duration.parse(orphans);
        if (grace.isNegative()) {
          throw new UsageException("--orphans must not be negative, was " + orphans);
        }
      }
    } catch (DateTimeParseException e) {
      throw new UsageException(
          "gc: --keep-newer-than takes an ISO-8601 instant (2026-11-01T00:00:00Z) and --orphans"
              + " an ISO-8601 duration (PT1H); "
              + e.getParsedString()
              + " is neither");
    } catch (IllegalArgumentException e) {
      throw new UsageException("gc: " + e.getMessage());
    }
  }

  /** What {@code collect} would do to {@code key}, from its history; nothing is changed. */
  private void dryRun(RafeStore store, String key, Map<String, Object> o) throws IOException {
    List<VersionInfo> versions = allVersions(store, key);
    List<Object> collected = new ArrayList<>();
    long bytes = 0;
    if (policy != null) {
      for (int i = 0; i < versions.size(); i++) {
        VersionInfo v = versions.get(i);
        if (!policy.keeps(i, v.createdAt())) {
          collected.add(v.version().toString());
          bytes += v.size();
        }
      }
    }
    o.put("dryRun", true);
    o.put("versionsCollected", collected);
    o.put("valueBytes", bytes);
    if (!json()) {
      out()
          .printf(
              "%s: would collect %d of %d versions (%d value bytes)%s%s (dry run)%n",
              key,
              collected.size(),
              versions.size(),
              bytes,
              collected.isEmpty()
                  ? ""
                  : ": " + String.join(", ", collected.stream().map(String::valueOf).toList()),
              grace == null ? "" : "; orphaned objects are not looked for in a dry run");
    }
  }

  @Override
  int run(RafeStore store, StoreConfig config) throws Exception {
    List<Object> results = new ArrayList<>();
    for (String key : keys) {
      Map<String, Object> o = Json.object();
      o.put("key", key);
      if (dryRun) {
        dryRun(store, key, o);
        results.add(o);
        continue;
      }
      if (policy != null) {
        CollectionReport r = store.blocking().collect(key, policy);
        List<Object> collected = new ArrayList<>();
        for (Version v : r.versionsCollected()) {
          collected.add(v.toString());
        }
        o.put("versionsCollected", collected);
        o.put("objectsDeleted", r.objectsDeleted());
        o.put("bytesFreed", r.bytesFreed());
        o.put("logEntriesBefore", r.logEntriesBefore());
        o.put("logEntriesAfter", r.logEntriesAfter());
        if (!json()) {
          out()
              .printf(
                  "%s: collected %d versions, freed %d bytes, log %d -> %d entries%n",
                  key,
                  r.versionsCollected().size(),
                  r.bytesFreed(),
                  r.logEntriesBefore(),
                  r.logEntriesAfter());
        }
      }
      if (grace != null) {
        OrphanReport r = store.blocking().collectOrphans(key, grace);
        o.put("orphansDeleted", r.deleted());
        o.put("orphansWaiting", r.waiting());
        if (!json()) {
          out()
              .printf(
                  "%s: deleted %d orphaned objects, %d waiting for the grace period%n",
                  key,
                  r.deleted().values().stream().mapToInt(List::size).sum(),
                  r.waiting().values().stream().mapToInt(List::size).sum());
        }
      }
      results.add(o);
    }
    if (json()) {
      Map<String, Object> o = Json.object();
      o.put("keys", results);
      printJson(o);
    }
    return ExitCodes.OK;
  }
}
