package io.rafestore;

/** The key exists but the requested version is not in its history (unknown or deleted). */
public class VersionNotFoundException extends RafeStoreException {
  private static final long serialVersionUID = 1L;
  private final String key;
  private final transient Version version;

  public VersionNotFoundException(String key, Version version, String why) {
    super("key '" + key + "' has no version " + version + ": " + why);
    this.key = key;
    this.version = version;
  }

  /** The key. */
  public String key() {
    return key;
  }

  /** The version asked for. */
  public Version version() {
    return version;
  }
}
