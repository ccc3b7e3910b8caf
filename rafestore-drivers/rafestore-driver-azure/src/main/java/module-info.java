/** The Azure Blob Storage driver (type {@code azure}; also Azurite). */
module io.rafestore.drivers.azure {
  exports io.rafestore.drivers.azure;

  requires transitive io.rafestore;
  // Transitive: the builder takes a com.azure.core.credential.TokenCredential.
  requires transitive com.azure.core;
  requires com.azure.core.http.jdk.httpclient;
  requires com.azure.identity;
  requires com.azure.storage.blob;
  requires com.azure.storage.common;
  requires reactor.core;
  requires java.net.http;

  provides io.rafestore.spi.DriverProvider with
      io.rafestore.drivers.azure.AzureDriverProvider;
}
