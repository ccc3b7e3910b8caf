package io.rafestore.internal.util;

import io.rafestore.spi.ObjectKey;
import java.nio.charset.StandardCharsets;

/**
 * Validation of user keys and writer ids, and their encoding into object names that are valid on
 * every supported store.
 *
 * <p>A user key is 1 to {@value #MAX_KEY_BYTES} bytes of UTF-8 without control characters. It is
 * percent-encoded into one path segment: ASCII letters, digits, {@code -} and {@code _} stay, and
 * so does {@code .} except in first position (so no segment is {@code .} or {@code ..}); every
 * other byte becomes {@code %XX}. The encoding is injective, so two keys never share objects.
 *
 * <p>Encoded keys longer than {@value #SEGMENT} characters are cut into segments of that length,
 * each but the last followed by {@code ~} (which never appears in an encoded key otherwise), so no
 * path segment exceeds the 255-byte limit of file-backed stores such as MinIO or a local disk. A
 * key's objects are always {@code prefix/<segments>/<writer...>}; a non-final key segment ends in
 * {@code ~} and a writer id never does, so no object name is ever a directory prefix of another
 * (which file-backed stores cannot hold).
 */
public final class Names {
  /** Longest user key, in UTF-8 bytes. Encoded, it still fits S3's 1024-byte object names. */
  public static final int MAX_KEY_BYTES = 256;

  /** Longest writer id. */
  public static final int MAX_WRITER_ID = 64;

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  /** Longest path segment of an encoded key, in characters (ASCII). */
  static final int SEGMENT = 200;

  private Names() {}

  /**
   * Checks a user key.
   *
   * @throws IllegalArgumentException saying what is wrong
   */
  public static String checkKey(String key) {
    if (key == null) {
      throw new IllegalArgumentException("key must not be null");
    }
    if (key.isEmpty()) {
      throw new IllegalArgumentException("key must not be empty");
    }
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (Character.isISOControl(c)) {
        throw new IllegalArgumentException(
            "key has a forbidden control character (U+"
                + String.format("%04X", (int) c)
                + ") at index "
                + i);
      }
      if (Character.isSurrogate(c)
          && !(Character.isHighSurrogate(c)
              && i + 1 < key.length()
              && Character.isLowSurrogate(key.charAt(i + 1)))
          && !(Character.isLowSurrogate(c)
              && i > 0
              && Character.isHighSurrogate(key.charAt(i - 1)))) {
        throw new IllegalArgumentException("key has an unpaired surrogate at index " + i);
      }
    }
    int bytes = key.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_KEY_BYTES) {
      throw new IllegalArgumentException(
          "key is " + bytes + " bytes of UTF-8, over the limit of " + MAX_KEY_BYTES);
    }
    return key;
  }

  /**
   * Checks a writer id: 1 to 64 characters of {@code A-Z a-z 0-9 - _}.
   *
   * @throws IllegalArgumentException saying what is wrong
   */
  public static String checkWriterId(String id) {
    // Most checks are of the one id checked last (every version built from a log's entries names
    // the log's writer, several times per write): String.equals answers at once for the same
    // object. Only an id that passed the check is remembered, and equal strings are equally valid.
    if (id != null && id.equals(lastValidWriterId)) {
      return id;
    }
    checkWriterIdFully(id);
    lastValidWriterId = id;
    return id;
  }

  /** The writer id {@link #checkWriterId} last found valid; null before the first. */
  private static volatile String lastValidWriterId;

  private static void checkWriterIdFully(String id) {
    if (id == null || id.isEmpty()) {
      throw new IllegalArgumentException("writer id must not be empty");
    }
    if (id.length() > MAX_WRITER_ID) {
      throw new IllegalArgumentException(
          "writer id '" + id + "' is longer than " + MAX_WRITER_ID + " characters");
    }
    for (int i = 0; i < id.length(); i++) {
      if (!plain(id.charAt(i))) {
        throw new IllegalArgumentException(
            "writer id '"
                + id
                + "' has forbidden character '"
                + id.charAt(i)
                + "' (allowed: A-Z a-z 0-9 - _)");
      }
    }
  }

  /** Longest tenant id. */
  public static final int MAX_TENANT_ID = 64;

  /**
   * Checks a tenant id: 1 to 64 characters of {@code A-Z a-z 0-9 - _ .}.
   *
   * @throws IllegalArgumentException naming the bad id and what is allowed
   */
  public static String checkTenant(String id) {
    if (id == null || id.isEmpty()) {
      throw new IllegalArgumentException(
          "tenant id must not be "
              + (id == null ? "null" : "empty")
              + " (1 to 64 of A-Z a-z 0-9 - _ .)");
    }
    if (id.length() > MAX_TENANT_ID) {
      throw new IllegalArgumentException(
          "tenant id '" + id + "' is longer than " + MAX_TENANT_ID + " characters");
    }
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      if (!plain(c) && c != '.') {
        throw new IllegalArgumentException(
            "tenant id '"
                + id
                + "' has forbidden character '"
                + c
                + "' (allowed: A-Z a-z 0-9 - _ .)");
      }
    }
    return id;
  }

  private static boolean plain(char c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || c == '-'
        || c == '_';
  }

  /** Encodes a (valid) user key into object-name segments (see the class comment). */
  public static String encodeKey(String key) {
    String flat = encodeFlat(key);
    if (flat.length() <= SEGMENT) {
      return flat;
    }
    StringBuilder sb = new StringBuilder(flat.length() + flat.length() / SEGMENT * 2);
    int at = 0;
    while (flat.length() - at > SEGMENT) {
      int end = at + SEGMENT;
      // Never leave "." or ".." as the last segment: it is not a valid path segment.
      int rest = flat.length() - end;
      if (rest <= 2 && flat.substring(end).chars().allMatch(c -> c == '.')) {
        end -= 3 - rest;
      }
      sb.append(flat, at, end).append("~/");
      at = end;
    }
    return sb.append(flat, at, flat.length()).toString();
  }

  private static String encodeFlat(String key) {
    byte[] utf8 = key.getBytes(StandardCharsets.UTF_8);
    StringBuilder sb = new StringBuilder(utf8.length + 8);
    for (int i = 0; i < utf8.length; i++) {
      int b = utf8[i] & 0xFF;
      char c = (char) b;
      if (b < 0x80 && (plain(c) || (c == '.' && i > 0))) {
        sb.append(c);
      } else {
        sb.append('%').append(HEX[b >>> 4]).append(HEX[b & 0xF]);
      }
    }
    return sb.toString();
  }

  /**
   * The inverse of {@link #encodeKey}; null if {@code encoded} is not the encoding of a valid key
   * ({@link #checkKey}). Never throws: names come from cloud listings.
   */
  public static String decodeKey(String encoded) {
    String segment = encoded.replace("~/", "");
    byte[] out = new byte[segment.length()];
    int n = 0;
    for (int i = 0; i < segment.length(); i++) {
      char c = segment.charAt(i);
      if (c == '%') {
        if (i + 2 >= segment.length()) {
          return null;
        }
        int hi = Character.digit(segment.charAt(i + 1), 16);
        int lo = Character.digit(segment.charAt(i + 2), 16);
        if (hi < 0 || lo < 0) {
          return null;
        }
        out[n++] = (byte) (hi << 4 | lo);
        i += 2;
      } else {
        out[n++] = (byte) c;
      }
    }
    String key = new String(out, 0, n, StandardCharsets.UTF_8);
    if (!encodeKey(key).equals(encoded)) {
      return null;
    }
    // A listing comes from a cloud, which may list any name: a canonical encoding of something
    // that is not a valid key (a control character, over 256 bytes) is not a key either, and
    // handing it on would make verifyAll fail on the key check instead of skipping it.
    try {
      checkKey(key);
    } catch (IllegalArgumentException e) {
      return null;
    }
    return key;
  }

  /** Prefix of every metadata object. */
  public static final String METADATA_PREFIX = "m/";

  /** Prefix of every data object. */
  public static final String DATA_PREFIX = "d/";

  /** The metadata log of {@code writer} for {@code key}: {@code m/<key>/<writer>}. */
  public static ObjectKey metadataObject(String key, String writer) {
    return ObjectKey.of(METADATA_PREFIX + encodeKey(key) + "/" + writer);
  }

  /**
   * A fresh data object name for a new version: {@code d/<key>/<timestamp-free unique id>}. The
   * name is chosen before the version's timestamp is known (writeDo runs before readM), so it is
   * made unique by the writer id and a random nonce; data objects are never overwritten.
   */
  public static ObjectKey dataObject(String key, String writer, String nonce) {
    return ObjectKey.of(DATA_PREFIX + encodeKey(key) + "/" + writer + "-" + nonce);
  }

  /** {@link #dataObject} with a fresh random 96-bit nonce: the name of a new version's data. */
  public static ObjectKey freshDataObject(String key, String writer) {
    byte[] nonce = new byte[12];
    java.util.concurrent.ThreadLocalRandom.current().nextBytes(nonce);
    return dataObject(key, writer, java.util.HexFormat.of().formatHex(nonce));
  }

  /** Prefix of every writer certificate object. */
  public static final String CERTIFICATE_PREFIX = "c/";

  /** Prefix of every revocation list object. */
  public static final String REVOCATION_PREFIX = "r/";

  /** {@code writer}'s certificate, written by the writer (or the operator): {@code c/<writer>}. */
  public static ObjectKey certificateObject(String writer) {
    return ObjectKey.of(CERTIFICATE_PREFIX + checkWriterId(writer));
  }

  /** The revocation list of an operator key: {@code r/<operator key id>}. */
  public static ObjectKey revocationObject(String operatorKeyId) {
    return ObjectKey.of(REVOCATION_PREFIX + checkWriterId(operatorKeyId));
  }
}
