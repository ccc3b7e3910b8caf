package io.rafestore.spi;

import java.util.Objects;
import java.util.Optional;

/**
 * The answer to a conditional get ({@link CloudDriver#getTagged}): either the object's bytes with
 * the tag the cloud gives this content (an S3 or Azure ETag, a GCS generation, a content hash), or
 * "unchanged": the object still has the tag the caller sent, and no bytes crossed the network.
 *
 * <p>A tag is opaque to the caller: it only ever sends back a tag the same cloud gave it. A driver
 * that cannot tell gives no tag ({@link #tag()} empty), and then the caller never sends one.
 *
 * <p>Immutable apart from the array, which belongs to the caller as {@link CloudDriver#get}'s does.
 */
public final class TaggedGet {
  private final byte[] data;
  private final String tag;

  private TaggedGet(byte[] data, String tag) {
    this.data = data;
    this.tag = tag;
  }

  /**
   * The object's bytes and, if the driver can give one, its tag.
   *
   * @param tag null when the driver has no tag for this content
   */
  public static TaggedGet of(byte[] data, String tag) {
    return new TaggedGet(Objects.requireNonNull(data, "data"), tag);
  }

  /** The object still has {@code tag}, the tag the caller sent: no bytes. */
  public static TaggedGet unchanged(String tag) {
    return new TaggedGet(null, Objects.requireNonNull(tag, "tag"));
  }

  /** Whether the cloud answered that the object still has the tag the caller sent. */
  public boolean unchanged() {
    return data == null;
  }

  /**
   * The object's bytes.
   *
   * @throws IllegalStateException if the answer is {@link #unchanged()}
   */
  public byte[] data() {
    if (data == null) {
      throw new IllegalStateException("unchanged: no bytes");
    }
    return data;
  }

  /** The bytes that crossed the network: 0 for an unchanged answer. */
  public long bytes() {
    return data == null ? 0 : data.length;
  }

  /** The content's tag, empty if the driver gives none. */
  public Optional<String> tag() {
    return Optional.ofNullable(tag);
  }

  @Override
  public String toString() {
    return unchanged() ? "unchanged " + tag : data.length + " bytes, tag " + tag;
  }
}
