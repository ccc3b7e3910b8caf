package io.rafestore;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a completed write did: the new version and how the protocol got there. The forum example
 * shows it to visitors; the benchmarks count {@link #onlyFPlusOneDataClouds()} (the paper's Table
 * 3).
 *
 * @param info the new version's metadata as written
 * @param dataCloudsContacted every data cloud the value was sent to (writeDo and writeDf)
 * @param writeDfUsed whether writeDf had to add clouds
 * @param metadataAcks the clouds that acknowledged the metadata before the write returned
 * @param readMSkipped whether readM was skipped ({@link ProtocolMode#FAST} with a known log)
 * @param latency time from the call to completion, on the client's scheduler
 * @param faultsTolerated f, for convenience
 * @param phases the timings of writeDo, readM, writeDf (if used) and writeM, in start order
 * @param layoutChoice with {@link Layout#AUTO}, the layout the client chose for this value and why
 *     (kind, k, clouds, predicted time and dollars, the runner-up); empty for a fixed layout and
 *     the DepSky modes
 */
public record WriteReceipt(
    VersionInfo info,
    List<String> dataCloudsContacted,
    boolean writeDfUsed,
    List<String> metadataAcks,
    boolean readMSkipped,
    Duration latency,
    int faultsTolerated,
    List<PhaseTiming> phases,
    Optional<LayoutChoice> layoutChoice) {

  public WriteReceipt {
    Objects.requireNonNull(info, "info");
    dataCloudsContacted = List.copyOf(dataCloudsContacted);
    metadataAcks = List.copyOf(metadataAcks);
    Objects.requireNonNull(latency, "latency");
    phases = List.copyOf(phases);
    Objects.requireNonNull(layoutChoice, "layoutChoice");
  }

  /** A receipt of a fixed layout (no choice made). */
  public WriteReceipt(
      VersionInfo info,
      List<String> dataCloudsContacted,
      boolean writeDfUsed,
      List<String> metadataAcks,
      boolean readMSkipped,
      Duration latency,
      int faultsTolerated,
      List<PhaseTiming> phases) {
    this(
        info,
        dataCloudsContacted,
        writeDfUsed,
        metadataAcks,
        readMSkipped,
        latency,
        faultsTolerated,
        phases,
        Optional.empty());
  }

  /** A receipt without phase timings (as before they were recorded). */
  public WriteReceipt(
      VersionInfo info,
      List<String> dataCloudsContacted,
      boolean writeDfUsed,
      List<String> metadataAcks,
      boolean readMSkipped,
      Duration latency,
      int faultsTolerated) {
    this(
        info,
        dataCloudsContacted,
        writeDfUsed,
        metadataAcks,
        readMSkipped,
        latency,
        faultsTolerated,
        List.of());
  }

  /** The version written. */
  public Version version() {
    return info.version();
  }

  /** Whether the write contacted only f+1 data clouds (no writeDf, no replacement). */
  public boolean onlyFPlusOneDataClouds() {
    return dataCloudsContacted.size() == faultsTolerated + 1;
  }

  /**
   * Whether the write contacted only the data clouds its layout needed (no writeDf, no
   * replacement): those of the {@link #layoutChoice()} (none for an inline value), or f+1 without a
   * choice, as {@link #onlyFPlusOneDataClouds()}.
   */
  public boolean onlyNeededDataClouds() {
    return layoutChoice
        .map(c -> dataCloudsContacted.size() == c.chosen().clouds().size())
        .orElseGet(this::onlyFPlusOneDataClouds);
  }
}
