package io.rafestore;

/**
 * What one cloud charges, in US dollars: the cost model. The layout chooser weighs these dollars
 * against milliseconds under the {@link Objective} ({@link Layout#AUTO}), {@link RafeStore#stats()}
 * reports each cloud's spend so far with them ({@link CloudStats#dollars()}), and features that
 * spend money on a cloud's behalf (the background {@link Scrubber}'s dollar budget) price their
 * requests with them. Set per cloud with {@link RafeStore.Builder#pricing} (or {@code
 * cloud.<id>.price...} in the configuration file, which defaults each cloud to its driver type's
 * table, {@link #forDriverType}); a cloud without one is priced at {@link #DEFAULT}. Immutable and
 * thread-safe.
 *
 * <p><b>The built-in tables are assumptions, not quotes.</b> Each is a provider's public list price
 * for its standard storage class in one US region, as entered on 2026-11-26 from the provider's
 * price page and not verified since; prices change, and differ by region, tier, volume and
 * contract. Replace them with yours for decisions that matter.
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

  /**
   * Amazon S3 Standard, us-east-1 (driver type {@code s3}): the same numbers as {@link #DEFAULT}.
   * An assumption entered 2026-11-26, not a quote.
   */
  public static final Pricing S3_STANDARD = DEFAULT;

  /**
   * Azure Blob Storage, hot tier, LRS, East US (driver type {@code azure}): $0.065 per 10,000 write
   * and list operations ($0.0065 per 1,000), $0.005 per 10,000 reads ($0.0005 per 1,000), $0.087
   * per GB of internet egress (the first 10 TB a month), $0.0208 per GB-month (the first 50 TB). An
   * assumption entered 2026-11-26, not a quote.
   */
  public static final Pricing AZURE_BLOB_HOT = new Pricing(0.0065, 0.0005, 0.0065, 0.087, 0.0208);

  /**
   * Google Cloud Storage, Standard class, a US region (driver type {@code gcs}): $0.005 per 1,000
   * class A operations (writes and lists), $0.0004 per 1,000 class B (reads), $0.12 per GB of
   * premium-tier internet egress (the first TB a month), $0.020 per GB-month. An assumption entered
   * 2026-11-26, not a quote.
   */
  public static final Pricing GCS_STANDARD = new Pricing(0.005, 0.0004, 0.005, 0.12, 0.020);

  /**
   * A cloud that charges nothing per request or byte: a local server, an emulator, a store you run
   * yourself (driver types {@code redis}, {@code memory}, {@code directory}), whose cost is its
   * machine rather than a bill per request. Give such a store a {@code Pricing} of your own if its
   * cost should weigh in the choice of clouds.
   */
  public static final Pricing FREE = new Pricing(0, 0, 0, 0, 0);

  /**
   * The built-in table for a driver type of the configuration file: {@link #S3_STANDARD} for {@code
   * s3}, {@link #AZURE_BLOB_HOT} for {@code azure}, {@link #GCS_STANDARD} for {@code gcs}, {@link
   * #FREE} for {@code redis}, {@code memory} and {@code directory}, and {@link #DEFAULT} for any
   * other type (a third-party driver). Assumptions, not quotes (see the class comment).
   */
  public static Pricing forDriverType(String type) {
    return switch (type) {
      case "s3" -> S3_STANDARD;
      case "azure" -> AZURE_BLOB_HOT;
      case "gcs" -> GCS_STANDARD;
      case "redis", "memory", "directory" -> FREE;
      default -> DEFAULT;
    };
  }

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

  /** USD for storing {@code bytes} bytes for {@code months} months. */
  public double storage(long bytes, double months) {
    return bytes / GB * storagePerGBMonth * months;
  }

  /** These prices, each times {@code factor} (a cloud ten times cheaper: {@code times(0.1)}). */
  public Pricing times(double factor) {
    return new Pricing(
        putsPer1000 * factor,
        getsPer1000 * factor,
        listsPer1000 * factor,
        egressPerGB * factor,
        storagePerGBMonth * factor);
  }
}
