package io.rafestore.cli;

import io.rafestore.ConditionOne;
import io.rafestore.ProbeOptions;
import io.rafestore.ProbeReport;
import io.rafestore.RafeStore;
import io.rafestore.config.StoreConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code rafestore probe}: measures every configured cloud (round trips the paper's way, ten small
 * puts, then bandwidth with larger puts), and prints per cloud RTT and bandwidth, the arrangement
 * the measurements recommend, and Condition 1 (HH <= L + H) for small values and for the given
 * value size. Probe objects live under {@code probe/} and are deleted afterwards.
 */
@Command(
    name = "probe",
    description = {
      "Measures each cloud's round trip and bandwidth, recommends which clouds should hold data",
      "and in which order, and checks Condition 1 (HH <= L + H) for small values and --size."
    })
final class ProbeCommand extends StoreCommand {
  @Option(
      names = "--rounds",
      paramLabel = "N",
      defaultValue = "10",
      description = "Small puts per cloud for the round trip (default ${DEFAULT-VALUE}).")
  int rounds;

  @Option(
      names = "--payload",
      paramLabel = "BYTES",
      defaultValue = "1048576",
      description =
          "Size of the puts that measure bandwidth, 0 to skip them (default ${DEFAULT-VALUE}).")
  long payload;

  @Option(
      names = "--payload-rounds",
      paramLabel = "N",
      defaultValue = "3",
      description = "Bandwidth puts per cloud (default ${DEFAULT-VALUE}).")
  int payloadRounds;

  @Option(
      names = "--size",
      paramLabel = "BYTES",
      defaultValue = "1048576",
      description = "Value size to recommend an arrangement for (default ${DEFAULT-VALUE}).")
  long size;

  private ProbeOptions options;

  @Override
  void prepare(StoreConfig config) throws UsageException {
    try {
      options = new ProbeOptions(rounds, payload, payload == 0 ? 0 : payloadRounds, size);
    } catch (IllegalArgumentException e) {
      throw new UsageException("probe: " + e.getMessage());
    }
  }

  @Override
  int run(RafeStore store, StoreConfig config) throws Exception {
    ProbeReport report = store.blocking().probe(options);
    if (json()) {
      printJson(toJson(report));
    } else {
      out().print(report);
      if (!report.toString().endsWith("\n")) {
        out().println();
      }
    }
    boolean allAnswered = report.clouds().stream().allMatch(c -> c.errors().isEmpty());
    return allAnswered ? ExitCodes.OK : ExitCodes.FAILED;
  }

  static Map<String, Object> toJson(ProbeReport r) {
    Map<String, Object> o = Json.object();
    Map<String, Object> opts = Json.object();
    opts.put("rttRounds", r.options().rttRounds());
    opts.put("payloadBytes", r.options().payloadBytes());
    opts.put("payloadRounds", r.options().payloadRounds());
    opts.put("valueSize", r.options().valueSize());
    o.put("options", opts);
    List<Object> clouds = new ArrayList<>();
    for (ProbeReport.CloudProbe c : r.clouds()) {
      Map<String, Object> m = Json.object();
      m.put("cloud", c.cloud());
      m.put("rttMedianMs", millis(c.rttMedian()));
      m.put("rttP90Ms", millis(c.rttP90()));
      m.put("bytesPerSecond", Math.round(c.bytesPerSecond()));
      m.put("predictedForValueMs", millis(c.predictedForValue()));
      m.put("succeeded", c.succeeded());
      m.put("errors", c.errors());
      clouds.add(m);
    }
    o.put("clouds", clouds);
    o.put("configured", arrangement(r.configured()));
    o.put("recommended", arrangement(r.recommended()));
    o.put("conditionSmall", condition(r.conditionSmall()));
    o.put("conditionForSize", condition(r.conditionForSize()));
    o.put("recommendedSmall", condition(r.recommendedSmall()));
    o.put("recommendedForSize", condition(r.recommendedForSize()));
    return o;
  }

  private static long millis(Duration d) {
    return d == null ? -1 : d.toMillis();
  }

  private static Map<String, Object> arrangement(ProbeReport.Arrangement a) {
    Map<String, Object> m = Json.object();
    m.put("writeDo", a.writeDo());
    m.put("writeDfExtras", a.writeDfExtras());
    m.put("metadataOnly", a.metadataOnly());
    return m;
  }

  private static Map<String, Object> condition(ConditionOne c) {
    Map<String, Object> m = Json.object();
    m.put("valueSize", c.valueSize());
    m.put("holds", c.holds());
    m.put("lMs", c.l().toMillis());
    m.put("lCloud", c.lCloud());
    m.put("hMs", c.h().toMillis());
    m.put("hCloud", c.hCloud());
    m.put("hhMs", c.hh().toMillis());
    m.put("hhCloud", c.hhCloud());
    return m;
  }
}
