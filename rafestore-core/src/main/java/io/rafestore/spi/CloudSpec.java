package io.rafestore.spi;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How to reach one cloud, as written in configuration: which driver ({@code type}), where ({@code
 * endpoint}, {@code bucket}, {@code region}), with which credentials ({@code credentialsRef}) and
 * any driver-specific {@code options}. {@link io.rafestore.clouds.Drivers} turns a spec into a
 * {@link CloudDriver}.
 *
 * <p>Credentials are never written in a spec: {@code credentialsRef} names where they are (for
 * example {@code env:NAME} for an environment variable); when it is absent the driver uses its
 * SDK's default credentials chain. Immutable and thread-safe.
 *
 * @param id the cloud's id (non-blank, see {@link CloudDriver#id()})
 * @param type the driver type, such as {@code s3}, {@code azure}, {@code gcs}, {@code redis} or
 *     {@code memory}
 * @param endpoint endpoint override (URL), or null for the provider's default
 * @param bucket bucket, container, directory or key prefix, or null where the type needs none
 * @param region region, or null
 * @param credentialsRef where the credentials are, or null for the SDK default chain
 * @param options driver-specific settings; copied
 */
public record CloudSpec(
    String id,
    String type,
    String endpoint,
    String bucket,
    String region,
    String credentialsRef,
    Map<String, String> options) {

  public CloudSpec {
    if (id == null || id.isBlank()) {
      throw new IllegalArgumentException("cloud spec: 'id' must not be blank");
    }
    if (type == null || type.isBlank()) {
      throw new IllegalArgumentException("cloud spec " + id + ": 'type' must not be blank");
    }
    options = Map.copyOf(options == null ? Map.of() : options);
  }

  /** A spec of the given id and type with no other setting. */
  public static CloudSpec of(String id, String type) {
    return new CloudSpec(id, type, null, null, null, null, Map.of());
  }

  /** A copy with another endpoint. */
  public CloudSpec withEndpoint(String value) {
    return new CloudSpec(id, type, value, bucket, region, credentialsRef, options);
  }

  /** A copy with another bucket (container, directory, key prefix). */
  public CloudSpec withBucket(String value) {
    return new CloudSpec(id, type, endpoint, value, region, credentialsRef, options);
  }

  /** A copy with another region. */
  public CloudSpec withRegion(String value) {
    return new CloudSpec(id, type, endpoint, bucket, value, credentialsRef, options);
  }

  /** A copy with another credentials reference. */
  public CloudSpec withCredentialsRef(String value) {
    return new CloudSpec(id, type, endpoint, bucket, region, value, options);
  }

  /** A copy with one more option. */
  public CloudSpec withOption(String name, String value) {
    Map<String, String> copy = new java.util.HashMap<>(options);
    copy.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
    return new CloudSpec(id, type, endpoint, bucket, region, credentialsRef, copy);
  }

  /** The endpoint, failing with a message naming the field if it is missing. */
  public String requireEndpoint() {
    return require("endpoint", endpoint);
  }

  /** The bucket, failing with a message naming the field if it is missing. */
  public String requireBucket() {
    return require("bucket", bucket);
  }

  /** An option's value, if set. */
  public Optional<String> option(String name) {
    return Optional.ofNullable(options.get(name));
  }

  /** A numeric option, or {@code fallback}; a value that is not a number fails naming it. */
  public long longOption(String name, long fallback) {
    String v = options.get(name);
    if (v == null) {
      return fallback;
    }
    try {
      return Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "cloud spec " + id + ": option '" + name + "' must be a number, was '" + v + "'", e);
    }
  }

  /**
   * The secret that {@code credentialsRef} points to: {@code env:NAME} reads environment variable
   * NAME (which must be set). Empty when there is no reference, meaning "use the SDK default
   * chain".
   */
  public Optional<String> resolveCredentials() {
    if (credentialsRef == null || credentialsRef.isBlank()) {
      return Optional.empty();
    }
    if (credentialsRef.startsWith("env:")) {
      String name = credentialsRef.substring(4);
      String value = System.getenv(name);
      if (value == null) {
        throw new IllegalArgumentException(
            "cloud spec "
                + id
                + ": 'credentialsRef' names environment variable "
                + name
                + ", which is not set");
      }
      return Optional.of(value);
    }
    throw new IllegalArgumentException(
        // The value is not echoed: a secret pasted here by mistake must not reach a log.
        "cloud spec " + id + ": 'credentialsRef' must look like env:NAME");
  }

  private String require(String field, String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(
          "cloud spec " + id + " (type " + type + "): '" + field + "' is required");
    }
    return value;
  }

  @Override
  public String toString() {
    // credentialsRef is a reference, not a secret, but options might hold one: print names only.
    return "CloudSpec[id="
        + id
        + ", type="
        + type
        + ", endpoint="
        + endpoint
        + ", bucket="
        + bucket
        + ", region="
        + region
        + ", credentialsRef="
        + credentialsRef
        + ", options="
        + options.keySet()
        + "]";
  }
}
