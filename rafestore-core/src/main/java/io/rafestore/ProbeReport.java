package io.rafestore;

import java.time.Duration;
import java.util.List;

/**
 * The result of {@link RafeStore#probe}: what each cloud measured, the arrangement the client
 * recommends, and Condition 1 for small values and for {@link ProbeOptions#valueSize}.
 *
 * @param options what was measured
 * @param clouds one entry per configured cloud, in configuration order
 * @param configured the client's current arrangement for values of {@code options.valueSize()}
 * @param recommended the arrangement the measurements favour: all clouds ranked by predicted
 *     completion for the value size; the first f+1 receive values (writeDo), the next f are
 *     writeDf's extras, the rest should hold metadata only
 * @param conditionSmall Condition 1 for small values in the configured arrangement
 * @param conditionForSize Condition 1 for {@code options.valueSize()} in the configured arrangement
 * @param recommendedSmall Condition 1 for small values in the recommended arrangement
 * @param recommendedForSize Condition 1 for {@code options.valueSize()} in the recommended one
 */
public record ProbeReport(
    ProbeOptions options,
    List<CloudProbe> clouds,
    Arrangement configured,
    Arrangement recommended,
    ConditionOne conditionSmall,
    ConditionOne conditionForSize,
    ConditionOne recommendedSmall,
    ConditionOne recommendedForSize) {

  public ProbeReport {
    clouds = List.copyOf(clouds);
  }

  /**
   * One cloud's measurements.
   *
   * @param cloud the cloud id
   * @param rttMedian median of the small puts
   * @param rttP90 90th percentile (nearest rank) of the small puts
   * @param bytesPerSecond bandwidth from the large puts: bytes over (median large put - median
   *     RTT), or, when the large puts were no slower than the small ones, the lower bound bytes
   *     over the median large put; 0 when not measured
   * @param predictedForValue the live model's predicted put time for a value of the probe's size,
   *     after the probe fed it
   * @param succeeded successful probe requests
   * @param errors one message per failed probe request (empty if none)
   */
  public record CloudProbe(
      String cloud,
      Duration rttMedian,
      Duration rttP90,
      double bytesPerSecond,
      Duration predictedForValue,
      int succeeded,
      List<String> errors) {
    public CloudProbe {
      errors = List.copyOf(errors);
    }
  }

  /**
   * Which clouds hold values and in which order.
   *
   * @param writeDo the f+1 clouds each value goes to first
   * @param writeDfExtras the data clouds added when writeDo acknowledgements are late, in order
   * @param metadataOnly clouds that hold metadata only
   */
  public record Arrangement(
      List<String> writeDo, List<String> writeDfExtras, List<String> metadataOnly) {
    public Arrangement {
      writeDo = List.copyOf(writeDo);
      writeDfExtras = List.copyOf(writeDfExtras);
      metadataOnly = List.copyOf(metadataOnly);
    }
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            "%-10s %10s %10s %12s %14s  %s%n",
            "cloud",
            "rtt p50",
            "rtt p90",
            "Mbit/s",
            "put(" + options.valueSize() + " B)",
            "errors"));
    for (CloudProbe c : clouds) {
      b.append(
          String.format(
              "%-10s %7d ms %7d ms %12.2f %11d ms  %s%n",
              c.cloud(),
              c.rttMedian().toMillis(),
              c.rttP90().toMillis(),
              c.bytesPerSecond() * 8 / 1e6,
              c.predictedForValue().toMillis(),
              c.errors().isEmpty() ? "-" : c.errors().size() + ": " + c.errors().get(0)));
    }
    b.append(line("configured ", configured));
    b.append(line("recommended", recommended));
    b.append("configured:  ").append(conditionSmall).append('\n');
    b.append("configured:  ").append(conditionForSize).append('\n');
    b.append("recommended: ").append(recommendedSmall).append('\n');
    b.append("recommended: ").append(recommendedForSize).append('\n');
    return b.toString();
  }

  private static String line(String label, Arrangement a) {
    return label
        + ": data "
        + a.writeDo()
        + ", extra data "
        + a.writeDfExtras()
        + ", metadata only "
        + a.metadataOnly()
        + "\n";
  }
}
