/**
 * The Google Cloud Storage driver (type {@code gcs}; also fake-gcs-server).
 *
 * <p>The google-cloud-storage SDK and the gax and google-cloud-core jars it builds on are not named
 * modules and set no {@code Automatic-Module-Name}, so on the module path they are automatic
 * modules named after their files ({@code google.cloud.storage}, {@code google.cloud.core}, {@code
 * google.cloud.core.http}, {@code gax}); the HTTP transport jars do declare names. One Google type
 * is part of this driver's API: {@code Builder.credentials(com.google.auth.Credentials)}, so {@code
 * com.google.auth} (an automatic module, hence the suppressed warning) is required transitively.
 *
 * <p>On the module path, put only core, this module and the jars it requires: the SDK's gRPC jars
 * split packages between them (com.google.storage.v2, com.google.longrunning), which a module layer
 * refuses, so they stay on the class path, which automatic modules read (see docs/design.md,
 * section 2).
 */
@SuppressWarnings({"module", "requires-transitive-automatic"})
module io.rafestore.drivers.gcs {
  exports io.rafestore.drivers.gcs;

  requires transitive io.rafestore;
  requires google.cloud.storage;
  requires google.cloud.core;
  requires google.cloud.core.http;
  requires gax;
  requires com.google.api.client;
  requires transitive com.google.auth;
  requires com.google.auth.oauth2;
  requires com.google.api.client.http.apache.v2;
  requires org.apache.httpcomponents.httpclient;

  provides io.rafestore.spi.DriverProvider with
      io.rafestore.drivers.gcs.GcsDriverProvider;
}
