package io.rafestore;

/**
 * The version asked for was garbage-collected: a watermark signed by a trusted writer says every
 * version up to and including {@link #collectedThrough()} is collected, so its data is (or soon
 * will be) gone from every cloud.
 *
 * <p>This is not an integrity failure: a reader that fetched metadata before a collection and then
 * finds the data deleted re-reads the metadata, and only if a signed watermark covers the version
 * does it report this exception. Data missing without such a watermark is still reported as an
 * {@link IntegrityException} (more than f clouds faulty).
 */
public class VersionCollectedException extends VersionNotFoundException {
  private static final long serialVersionUID = 1L;
  private final transient Version collectedThrough;

  /**
   * @param key the key
   * @param version the version asked for
   * @param collectedThrough the newest collected version (the signed watermark)
   */
  public VersionCollectedException(String key, Version version, Version collectedThrough) {
    super(key, version, "garbage-collected (every version up to " + collectedThrough + ")");
    this.collectedThrough = collectedThrough;
  }

  /** The watermark: every version up to and including this one is collected. */
  public Version collectedThrough() {
    return collectedThrough;
  }
}
