package io.rafestore.cli;

import io.rafestore.RafeStore;
import io.rafestore.RepairReport;
import io.rafestore.VerifyReport;
import io.rafestore.Version;
import io.rafestore.config.StoreConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code rafestore verify [--repair] [KEY...]}: checks every cloud for each key (every key found on
 * the clouds when none is given): metadata present, newest and validly signed on every cloud, key
 * shares present, data objects present with the signed hash on every listed holder of every
 * retained version. Exit code 3 when something is wrong (after repair: still wrong). With {@code
 * --repair}, copies the newest signed metadata and verified data to the clouds that lack them, then
 * verifies again. Each key's line says how many more faults it survives (lost or corrupt copies of
 * its weakest part, fragment or log), and a version one fault from loss, or lost, gets a line.
 */
@Command(
    name = "verify",
    description = {
      "Checks every cloud for KEY (every key on the clouds if none is given): metadata agreement,",
      "signatures, key shares, data hashes, missing copies, and how many more faults each key",
      "survives (a version one fault from loss is flagged). Exit code 3 if anything is wrong.",
      "--repair copies the newest signed metadata and verified data where they are missing."
    })
final class VerifyCommand extends StoreCommand {
  @Parameters(paramLabel = "KEY", arity = "0..*", description = "Keys to check (default: all).")
  List<String> keys = new ArrayList<>();

  @Option(
      names = "--repair",
      description = "Copy from correct clouds until every cloud holds what it should.")
  boolean repair;

  @Option(
      names = {"-n", "--dry-run"},
      description = "With --repair: verify only, and print what repair would fix; change nothing.")
  boolean dryRun;

  @Override
  int run(RafeStore store, StoreConfig config) throws Exception {
    List<String> todo = keys.isEmpty() ? store.blocking().keys() : keys;
    boolean clean = true;
    List<Object> results = new ArrayList<>();
    for (String key : todo) {
      VerifyReport report;
      RepairReport repaired = null;
      if (repair && !dryRun) {
        repaired = store.blocking().repair(key);
        report = repaired.after();
      } else {
        report = store.blocking().verify(key);
      }
      clean &= report.isClean();
      if (json()) {
        results.add(toJson(key, report, repaired));
      } else {
        print(key, report, repaired);
      }
    }
    if (json()) {
      Map<String, Object> o = Json.object();
      o.put("keys", results);
      o.put("clean", clean);
      if (repair && dryRun) {
        o.put("dryRun", true);
      }
      printJson(o);
    } else if (todo.isEmpty()) {
      out().println("no keys on the clouds");
    }
    return clean ? ExitCodes.OK : ExitCodes.INTEGRITY;
  }

  private void print(String key, VerifyReport report, RepairReport repaired) {
    if (repaired != null) {
      for (String a : repaired.actions()) {
        out().printf("%s: repaired %s%n", key, a);
      }
      for (String f : repaired.failures()) {
        out().printf("%s: could not repair %s%n", key, f);
      }
      for (String s : repaired.superseded()) {
        out().printf("%s: did not repair %s%n", key, s);
      }
    }
    if (report.isClean()) {
      out()
          .printf(
              "%s: clean (%d versions on %d clouds)%s%n",
              key, report.retainedVersions().size(), report.clouds().size(), survives(report));
    } else {
      for (VerifyReport.Finding f : report.findings()) {
        out().printf(repair && dryRun ? "%s: would repair %s%n" : "%s: %s%n", key, f);
      }
      out().printf("%s: %d problem(s)%s%n", key, report.findings().size(), survives(report));
    }
    // Clouds a cost-minded writeM left behind by design while n - f hold the newest log.
    for (VerifyReport.Finding f : report.laggingLogs()) {
      out().printf("%s: lagging (not a fault) %s%n", key, f);
    }
    // The versions at risk, each with what limits it: one fault from loss, or lost already.
    for (VerifyReport.Margin m : report.margins()) {
      if (m.faults() <= 0) {
        out().printf("%s: %s%n", key, m);
      }
    }
  }

  /** ", survives N more fault(s)": how many more lost copies the key's weakest version survives. */
  static String survives(VerifyReport report) {
    if (report.faultsSurvivable().isEmpty()) {
      return "";
    }
    int n = report.faultsSurvivable().getAsInt();
    if (n < 0) {
      return ", " + report.lost().size() + " version(s) LOST";
    }
    return ", survives "
        + n
        + " more fault"
        + (n == 1 ? "" : "s")
        + (report.oneFaultFromLoss() ? " (ONE FAULT FROM LOSS)" : "");
  }

  private static Map<String, Object> toJson(
      String key, VerifyReport report, RepairReport repaired) {
    Map<String, Object> o = Json.object();
    o.put("key", key);
    o.put("clean", report.isClean());
    List<Object> versions = new ArrayList<>();
    for (Version v : report.retainedVersions()) {
      versions.add(v.toString());
    }
    o.put("retainedVersions", versions);
    List<Object> findings = new ArrayList<>();
    for (VerifyReport.Finding f : report.findings()) {
      Map<String, Object> m = Json.object();
      m.put("cloud", f.cloudId());
      m.put("problem", f.problem().name());
      m.put("subject", f.subject());
      m.put("detail", f.detail());
      findings.add(m);
    }
    o.put("findings", findings);
    if (!report.laggingLogs().isEmpty()) {
      List<Object> lagging = new ArrayList<>();
      for (VerifyReport.Finding f : report.laggingLogs()) {
        Map<String, Object> m = Json.object();
        m.put("cloud", f.cloudId());
        m.put("problem", f.problem().name());
        m.put("subject", f.subject());
        m.put("detail", f.detail());
        lagging.add(m);
      }
      o.put("laggingLogs", lagging);
    }
    report.faultsSurvivable().ifPresent(n -> o.put("faultsSurvivable", n));
    o.put("oneFaultFromLoss", report.oneFaultFromLoss());
    List<Object> margins = new ArrayList<>();
    for (VerifyReport.Margin m : report.margins()) {
      Map<String, Object> j = Json.object();
      j.put("version", m.version().toString());
      j.put("faults", m.faults());
      j.put("weakest", m.weakest());
      j.put("missing", m.missing());
      margins.add(j);
    }
    o.put("margins", margins);
    if (repaired != null) {
      o.put("repaired", repaired.actions());
      o.put("repairFailures", repaired.failures());
      o.put("repairSuperseded", repaired.superseded());
      o.put("problemsBefore", repaired.before().findings().size());
    }
    return o;
  }
}
