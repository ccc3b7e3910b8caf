package io.rafestore;

/**
 * How the RafeStore modes ({@link ProtocolMode#PAPER}, {@link ProtocolMode#FAST}) lay out each new
 * value on the data clouds ({@code RafeStore.Builder.layout}). The DepSky baselines ignore it.
 */
public enum Layout {
  /**
   * One way for every value, as the other settings say (the default): f+1 whole copies on the data
   * clouds predicted fastest for the value's size, or with {@code erasureCoding(k)} k data and f
   * parity fragments; in parts above {@code partSize} either way.
   */
  FIXED,
  /**
   * Chosen per value by the client from its measured round-trip times and bandwidths per cloud and
   * the clouds' prices, under the {@link Objective}: whole copies on which f+1 clouds, or
   * erasure-coded fragments with which k on which k+f clouds (and, where the client allows it,
   * inline in the signed log). The {@link WriteReceipt#layoutChoice()} says what was chosen and
   * why. Refused together with {@code erasureCoding(k)}, which fixes the layout.
   */
  AUTO
}
