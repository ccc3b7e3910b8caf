/**
 * The {@code rafestore} command. {@code io.rafestore.cli} is its one package and its API ({@link
 * io.rafestore.cli.Main}, the exit codes); picocli reads the commands' annotated fields
 * reflectively, so the package is also opened to it.
 *
 * <p>The drivers are found through {@link java.util.ServiceLoader} by core, so service binding
 * brings every driver module on the module path into the graph; only the s3 and gcs drivers are
 * required, because {@code rafestore init} creates their buckets. The released command is the
 * shaded {@code rafestore.jar}, which runs on the class path.
 */
module io.rafestore.cli {
  exports io.rafestore.cli;

  opens io.rafestore.cli to
      info.picocli;

  requires transitive io.rafestore;
  requires transitive info.picocli;
  requires io.rafestore.config;
  // Optional at run time: only the packaged command carries the (unpublished) bench.
  requires static io.rafestore.bench;
  requires io.rafestore.drivers.s3;
  requires io.rafestore.drivers.gcs;
}
