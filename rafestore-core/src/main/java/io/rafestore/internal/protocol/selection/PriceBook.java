package io.rafestore.internal.protocol.selection;

/**
 * The clouds' prices as the layout chooser reads them: one small interface, so the public price
 * record the user passes to the builder can be wired in without the chooser knowing its shape.
 * Until then every cloud has {@link #LIST_PRICES}.
 */
@FunctionalInterface
public interface PriceBook {

  /** The prices of {@code cloud}. */
  Price of(String cloud);

  /**
   * One cloud's prices in US dollars.
   *
   * @param putPer1000 per 1,000 puts
   * @param getPer1000 per 1,000 gets
   * @param listPer1000 per 1,000 lists (and deletes)
   * @param egressPerGB per GB (10^9 bytes) downloaded from the cloud
   * @param storagePerGBMonth per GB stored for a month
   */
  record Price(
      double putPer1000,
      double getPer1000,
      double listPer1000,
      double egressPerGB,
      double storagePerGBMonth) {
    public Price {
      for (double d : new double[] {putPer1000, getPer1000, listPer1000, egressPerGB}) {
        if (!(d >= 0) || Double.isInfinite(d)) {
          throw new IllegalArgumentException("prices must be finite and >= 0");
        }
      }
      if (!(storagePerGBMonth >= 0) || Double.isInfinite(storagePerGBMonth)) {
        throw new IllegalArgumentException("prices must be finite and >= 0");
      }
    }

    /** The same prices times {@code factor} (tests: a cloud ten times cheaper). */
    public Price times(double factor) {
      return new Price(
          putPer1000 * factor,
          getPer1000 * factor,
          listPer1000 * factor,
          egressPerGB * factor,
          storagePerGBMonth * factor);
    }
  }

  /**
   * Rounded list prices of a standard storage class (the benchmark's price table's S3 Standard
   * line, an assumption to be checked: $0.005 per 1,000 puts, $0.0004 per 1,000 gets and lists,
   * $0.09 per GB egress, $0.023 per GB-month).
   */
  Price LIST_PRICES = new Price(0.005, 0.0004, 0.0004, 0.09, 0.023);

  /** Every cloud at {@link #LIST_PRICES}. */
  PriceBook LIST = cloud -> LIST_PRICES;
}
