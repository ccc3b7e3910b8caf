package io.rafestore;

/** The key has no version (never written, or deleted). */
public class KeyNotFoundException extends RafeStoreException {
  private static final long serialVersionUID = 1L;
  private final String key;

  public KeyNotFoundException(String key, String why) {
    super("key '" + key + "' not found: " + why);
    this.key = key;
  }

  /** The key that was asked for. */
  public String key() {
    return key;
  }
}
