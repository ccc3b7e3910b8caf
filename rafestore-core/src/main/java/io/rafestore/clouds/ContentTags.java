package io.rafestore.clouds;

import io.rafestore.internal.codec.Sha256;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.TaggedGet;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Content tags of the clouds that keep whole objects themselves ({@link MemoryCloud}, {@link
 * DirectoryCloud}): an object's tag is the SHA-256 of its bytes, in hex, as S3's ETag is a hash of
 * a single-part object's bytes. Equal bytes have equal tags, so "unchanged" means exactly "holds
 * the bytes the tag was given for".
 */
final class ContentTags {
  private ContentTags() {}

  /** The tag of stored bytes. */
  static String of(byte[] stored) {
    return HexFormat.of().formatHex(Sha256.hash(stored));
  }

  /**
   * The answer to a tagged get of an object whose whole stored bytes are {@code stored}:
   * "unchanged" if they still have the tag {@code ifNoneMatch} names, else {@code range} of them
   * (clipped; a copy, or {@code stored} itself when {@code owned}) with their tag.
   *
   * @param owned whether {@code stored} is the caller's own array, free to hand out whole
   */
  static TaggedGet answer(
      byte[] stored, Optional<ByteRange> range, Optional<String> ifNoneMatch, boolean owned) {
    String tag = of(stored);
    if (ifNoneMatch.isPresent() && ifNoneMatch.get().equals(tag)) {
      return TaggedGet.unchanged(tag);
    }
    return TaggedGet.of(slice(stored, range, owned), tag);
  }

  /** {@code range} of {@code stored} (clipped to it), or all of it; a copy unless {@code owned}. */
  static byte[] slice(byte[] stored, Optional<ByteRange> range, boolean owned) {
    if (range.isEmpty()) {
      return owned ? stored : stored.clone();
    }
    long[] span = range.get().clip(stored.length);
    return Arrays.copyOfRange(stored, (int) span[0], (int) span[1]);
  }
}
