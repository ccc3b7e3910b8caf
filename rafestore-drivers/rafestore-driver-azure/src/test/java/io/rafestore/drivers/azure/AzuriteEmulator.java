package io.rafestore.drivers.azure;

import java.util.UUID;

/** The local Azurite that {@code scripts/emulators.sh start} runs. */
final class AzuriteEmulator {
  static final String ENV = "RAFESTORE_AZURE_CONNECTION_STRING";

  private AzuriteEmulator() {}

  static String connectionString() {
    String value = System.getenv(ENV);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException(
          ENV
              + " is not set: run 'scripts/emulators.sh start' and "
              + "'eval \"$(scripts/emulators.sh env)\"' before these tests");
    }
    return value;
  }

  /** A driver over a new container, created on first write. */
  static AzureBlobCloud fresh(String id) {
    return AzureBlobCloud.builder(id)
        .connectionString(connectionString())
        .container("t-" + UUID.randomUUID())
        .build();
  }
}
