package io.rafestore;

/**
 * What one cloud charges, in US dollars: the price table that features which spend money on a
 * cloud's behalf (the background {@link Scrubber}'s dollar budget) price their requests with. Set
 * per cloud with {@link RafeStore.Builder#pricing}; a cloud without one is priced at {@link
 * #DEFAULT}. Immutable and thread-safe.
 *
 * @param putsPer1000 USD per 1,000 put requests (a native multipart upload's begin, each part and
 *     its completion count as puts, as providers bill them)
 * @param getsPer1000 USD per 1,000 get requests, ranged or not
 * @param listsPer1000 USD per 1,000 list requests (one page each)
 * @param egressPerGB USD per GB (10^9 bytes) downloaded from the cloud
 * @param storagePerGBMonth USD per GB stored for a month
 */
public record Pricing(
    double putsPer1000,
    double getsPer1000,
    double listsPer1000,
    double egressPerGB,
    double storagePerGBMonth) {

  /**
   * AWS S3 Standard list prices in us-east-1: $0.005 per 1,000 puts and lists, $0.0004 per 1,000
   * gets, $0.09 per GB of egress (the first 10 TB a month to the internet), $0.023 per GB-month.
   * <b>An assumption, not a quote</b>: entered 2026-11 from the provider's public price page as the
   * bench's price table states it ({@code rafestore-bench}, {@code prices/list-prices.properties}),
   * not verified since; prices change and differ by region, tier and contract. Deletes are free.
   */
  public static final Pricing DEFAULT = new Pricing(0.005, 0.0004, 0.005, 0.09, 0.023);

  /** A cloud that charges nothing (a local server, an emulator). */
  public static final Pricing FREE = new Pricing(0, 0, 0, 0, 0);

  private static final double GB = 1e9;

  /**
   * @throws IllegalArgumentException if a price is negative, NaN or infinite (naming it)
   */
  public Pricing {
    check("putsPer1000", putsPer1000);
    check("getsPer1000", getsPer1000);
    check("listsPer1000", listsPer1000);
    check("egressPerGB", egressPerGB);
    check("storagePerGBMonth", storagePerGBMonth);
  }

  private static void check(String name, double usd) {
    if (!(usd >= 0) || Double.isInfinite(usd)) {
      throw new IllegalArgumentException(
          "pricing: " + name + " must be a finite number of USD >= 0, was " + usd);
    }
  }

  /** USD for one put request. */
  public double perPut() {
    return putsPer1000 / 1000;
  }

  /** USD for one get request. */
  public double perGet() {
    return getsPer1000 / 1000;
  }

  /** USD for one list request. */
  public double perList() {
    return listsPer1000 / 1000;
  }

  /** USD for downloading {@code bytes} bytes. */
  public double egress(long bytes) {
    return bytes / GB * egressPerGB;
  }
}
