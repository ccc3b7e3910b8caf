package io.rafestore.drivers.gcs;

import com.google.auth.oauth2.GoogleCredentials;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudSpec;
import io.rafestore.spi.DriverProvider;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * Type {@code gcs}. {@code bucket} is required; {@code endpoint} overrides the host. Credentials:
 * {@code credentialsRef} {@code env:NAME}, whose variable holds the path of a credentials JSON file
 * (such as a service account key) or that JSON itself; none with option {@code anonymous=true}
 * (emulators); otherwise Application Default Credentials ({@code GOOGLE_APPLICATION_CREDENTIALS},
 * {@code gcloud auth application-default login}, the metadata server on Google Cloud). Options
 * {@code projectId}, {@code resumableThreshold}, {@code maxAttempts}, {@code connectTimeoutMs},
 * {@code readTimeoutMs}, {@code maxThreads} (also the connection pool's size), {@code
 * connectionIdleTimeoutMs}.
 */
public final class GcsDriverProvider implements DriverProvider {
  /** Called by {@link java.util.ServiceLoader}. */
  public GcsDriverProvider() {}

  @Override
  public String type() {
    return "gcs";
  }

  @Override
  public CloudDriver create(CloudSpec spec) {
    return prepare(spec).get();
  }

  /**
   * Checks the settings and chooses the credentials now; the supplier builds the SDK client, the
   * slow part of creating the driver.
   */
  @Override
  public Supplier<CloudDriver> prepare(CloudSpec spec) {
    GcsCloud.Builder b = GcsCloud.builder(spec.id()).bucket(spec.requireBucket());
    if (spec.endpoint() != null) {
      b.endpoint(URI.create(spec.endpoint()));
    }
    spec.option("projectId").ifPresent(b::projectId);
    b.anonymous(Boolean.parseBoolean(spec.option("anonymous").orElse("false")));
    spec.resolveCredentials()
        .ifPresent(
            c -> {
              if (c.stripLeading().startsWith("{")) {
                try {
                  b.credentials(
                      GoogleCredentials.fromStream(
                          new ByteArrayInputStream(c.getBytes(StandardCharsets.UTF_8))));
                } catch (IOException | RuntimeException e) {
                  // Not echoed: the JSON holds a private key.
                  throw new IllegalArgumentException(
                      "cloud spec "
                          + spec.id()
                          + ": 'credentialsRef' holds JSON that is not a Google credentials file: "
                          + e.getClass().getSimpleName(),
                      e);
                }
              } else {
                b.credentialsFile(Path.of(c.strip()));
              }
            });
    b.resumableThreshold(spec.longOption("resumableThreshold", 8L * 1024 * 1024));
    b.maxAttempts(Math.toIntExact(spec.longOption("maxAttempts", 3)));
    b.connectTimeout(Duration.ofMillis(spec.longOption("connectTimeoutMs", 5_000)));
    b.readTimeout(Duration.ofMillis(spec.longOption("readTimeoutMs", 60_000)));
    b.maxThreads(
        (int)
            Math.max(
                Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, spec.longOption("maxThreads", 16))));
    b.connectionIdleTimeout(Duration.ofMillis(spec.longOption("connectionIdleTimeoutMs", 60_000)));
    try {
      Supplier<GcsCloud> driver = b.prepare();
      return driver::get;
    } catch (IllegalArgumentException e) {
      String m = String.valueOf(e.getMessage());
      if (m.startsWith("credentialsFile") || m.startsWith("no Application Default")) {
        // Name the spec's field, so a configuration file's error points at its line.
        throw new IllegalArgumentException(
            "cloud spec " + spec.id() + ": 'credentialsRef': " + m, e);
      }
      throw e;
    }
  }
}
