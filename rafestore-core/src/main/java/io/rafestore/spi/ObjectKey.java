package io.rafestore.spi;

import java.nio.charset.StandardCharsets;

/**
 * The name of an object inside one cloud's bucket, container or directory.
 *
 * <p>RafeStore makes every object name itself (user keys are encoded before they reach a driver),
 * so the alphabet is deliberately narrow and valid on every supported store: ASCII letters and
 * digits, {@code - _ . ~ %} and {@code /} as a separator. Segments are non-empty and never {@code
 * .} or {@code ..}, so a directory-backed driver can map names to paths safely.
 *
 * @param value the name, 1 to 1024 bytes
 */
public record ObjectKey(String value) implements Comparable<ObjectKey> {
  /** Longest accepted name, in bytes (S3's limit). */
  public static final int MAX_LENGTH = 1024;

  public ObjectKey {
    if (value == null || value.isEmpty()) {
      throw new IllegalArgumentException("object key must not be empty");
    }
    if (value.getBytes(StandardCharsets.UTF_8).length > MAX_LENGTH) {
      throw new IllegalArgumentException(
          "object key is longer than " + MAX_LENGTH + " bytes: " + value.substring(0, 40) + "...");
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (!allowed(c)) {
        throw new IllegalArgumentException(
            "object key '"
                + value
                + "' has forbidden character '"
                + c
                + "' at index "
                + i
                + " (allowed: A-Z a-z 0-9 - _ . ~ % /)");
      }
    }
    for (String segment : value.split("/", -1)) {
      if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
        throw new IllegalArgumentException(
            "object key '" + value + "' has an empty, '.' or '..' path segment");
      }
    }
  }

  private static boolean allowed(char c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || c == '-'
        || c == '_'
        || c == '.'
        || c == '~'
        || c == '%'
        || c == '/';
  }

  /** Shorthand for {@code new ObjectKey(value)}. */
  public static ObjectKey of(String value) {
    return new ObjectKey(value);
  }

  @Override
  public int compareTo(ObjectKey other) {
    return value.compareTo(other.value);
  }

  @Override
  public String toString() {
    return value;
  }
}
