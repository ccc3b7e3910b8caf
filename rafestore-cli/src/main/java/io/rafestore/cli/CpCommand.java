package io.rafestore.cli;

import io.rafestore.HistoryPage;
import io.rafestore.KeyNotFoundException;
import io.rafestore.RafeStore;
import io.rafestore.VersionInfo;
import io.rafestore.WriteReceipt;
import io.rafestore.config.StoreConfig;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code rafestore cp [-r] [-P] SOURCE DEST}: copies files into the store or values out of it,
 * streamed part by part. The store side is written {@code rs:KEY} or {@code rs:PREFIX}.
 */
@Command(
    name = "cp",
    description = {
      "Copies between local files and the store; the store side is written rs:KEY (rs:PREFIX/"
          + " with -r). Values are streamed in parts (memory about partsInFlight x partSize,"
          + " whatever the size), each part verified before it is written locally.",
      "  cp FILE rs:KEY          FILE becomes a new version of KEY (rs:DIR/ appends FILE's name)",
      "  cp -r DIR rs:PREFIX     every file under DIR becomes PREFIX/RELATIVE/PATH",
      "  cp rs:KEY FILE|DIR      the latest value of KEY (into DIR under the key's last segment)",
      "  cp -r rs:PREFIX DIR     every key PREFIX/REST becomes DIR/REST",
      "Downloads go through a temporary file renamed into place once verified. A file that fails"
          + " is reported on standard error and the copy goes on with the others; the exit code"
          + " is then the most serious failure's (3 integrity, 5 unavailable, 1 other, 4 not"
          + " found, 2 usage)."
    })
final class CpCommand extends StoreCommand {
  /** Marks the store side of a copy. */
  static final String REMOTE = "rs:";

  @Parameters(index = "0", paramLabel = "SOURCE", description = "A local path or rs:KEY.")
  String source;

  @Parameters(index = "1", paramLabel = "DEST", description = "A local path or rs:KEY.")
  String dest;

  @Option(
      names = {"-r", "--recursive"},
      description = "Copy a directory tree, or every key under a prefix.")
  boolean recursive;

  @Option(
      names = {"-P", "--progress"},
      description =
          "Show progress on standard error: bytes and files done, rate, time left (every 0.5 s,"
              + " and a final line).")
  boolean progress;

  @Option(
      names = {"-n", "--dry-run"},
      description = "List what would be copied (files, keys, sizes); copy nothing.")
  boolean dryRun;

  /** One file to copy: its local path and key (and, downloading, the version to read). */
  private record Item(Path file, String key, long size, VersionInfo version) {}

  private boolean upload;
  private final List<Item> uploads = new ArrayList<>();

  @Override
  void prepare(StoreConfig config) throws Exception {
    boolean srcRemote = source.startsWith(REMOTE);
    boolean dstRemote = dest.startsWith(REMOTE);
    if (srcRemote == dstRemote) {
      throw new UsageException(
          "cp: exactly one of SOURCE and DEST must be in the store (written rs:KEY), got '"
              + source
              + "' and '"
              + dest
              + "'");
    }
    upload = dstRemote;
    if (!upload) {
      return; // the keys are listed once the store is open
    }
    requireWriter(config, "cp");
    Path src = Path.of(source);
    String prefix = dest.substring(REMOTE.length());
    if (Files.isDirectory(src)) {
      if (!recursive) {
        throw new UsageException("cp: " + source + " is a directory (use -r to copy a tree)");
      }
      try (Stream<Path> walk = Files.walk(src)) {
        for (Path p : walk.filter(Files::isRegularFile).sorted().toList()) {
          String rel =
              src.relativize(p).toString().replace(src.getFileSystem().getSeparator(), "/");
          uploads.add(new Item(p, join(prefix, rel), Files.size(p), null));
        }
      }
    } else if (Files.isRegularFile(src)) {
      String key = prefix.isEmpty() || prefix.endsWith("/") ? prefix + src.getFileName() : prefix;
      uploads.add(new Item(src, key, Files.size(src), null));
    } else {
      throw new UsageException("cp: cannot read " + source + ": no such file or directory");
    }
  }

  private static String join(String prefix, String rel) {
    if (prefix.isEmpty() || prefix.endsWith("/")) {
      return prefix + rel;
    }
    return prefix + "/" + rel;
  }

  @Override
  int run(RafeStore store, StoreConfig config) throws Exception {
    List<Item> items = upload ? uploads : downloads(store);
    long total = items.stream().mapToLong(Item::size).sum();
    if (dryRun) {
      return dryRun(items, total);
    }
    Progress p =
        new Progress(spec.commandLine().getErr(), progress, total, items.size(), System::nanoTime);
    List<Object> done = new ArrayList<>();
    List<Object> failed = new ArrayList<>();
    int code = ExitCodes.OK;
    for (Item item : items) {
      Map<String, Object> o = Json.object();
      o.put("file", item.file().toString());
      o.put("key", item.key());
      o.put("size", item.size());
      try {
        if (upload) {
          WriteReceipt r = Transfers.upload(store, item.key(), item.file(), p);
          o.put("version", r.info().version().toString());
          o.put("sha256", r.info().sha256Hex());
        } else {
          Transfers.download(store, item.key(), item.version().version(), item.file(), p);
          o.put("version", item.version().version().toString());
          o.put("sha256", item.version().sha256Hex());
        }
      } catch (InterruptedIOException e) {
        throw e;
      } catch (IOException | RuntimeException e) {
        // One file's failure does not stop the others (as rclone does); each is reported, and
        // the exit code is the most serious kind seen.
        int c = Main.exitCode(e);
        code = ExitCodes.moreSerious(code, c);
        String what =
            upload
                ? item.file() + " -> rs:" + item.key()
                : "rs:" + item.key() + " -> " + item.file();
        spec.commandLine()
            .getErr()
            .printf("rafestore cp: %s: %s (exit code %d)%n", what, Main.message(e), c);
        spec.commandLine().getErr().flush();
        o.put("error", Main.message(e));
        o.put("exitCode", c);
        failed.add(o);
        continue;
      }
      p.fileDone();
      done.add(o);
    }
    p.finish();
    if (json()) {
      Map<String, Object> o = Json.object();
      o.put("files", done);
      o.put("failed", failed);
      o.put("bytes", p.bytes());
      printJson(o);
    } else {
      out()
          .printf(
              "cp: %d file%s, %s %s%n",
              done.size(),
              done.size() == 1 ? "" : "s",
              Progress.size(p.bytes()),
              upload ? "written to the store" : "read from the store (verified)");
    }
    if (!failed.isEmpty()) {
      spec.commandLine()
          .getErr()
          .printf(
              "rafestore cp: %d of %d file%s failed (listed above); the other %d were copied%n",
              failed.size(), items.size(), items.size() == 1 ? "" : "s", done.size());
      spec.commandLine().getErr().flush();
    }
    return code;
  }

  /** Lists what would be copied, contacting the store only to list a download's keys. */
  private int dryRun(List<Item> items, long total) {
    if (json()) {
      List<Object> files = new ArrayList<>();
      for (Item item : items) {
        Map<String, Object> o = Json.object();
        o.put("file", item.file().toString());
        o.put("key", item.key());
        o.put("size", item.size());
        if (item.version() != null) {
          o.put("version", item.version().version().toString());
        }
        files.add(o);
      }
      Map<String, Object> o = Json.object();
      o.put("dryRun", true);
      o.put("files", files);
      o.put("bytes", total);
      printJson(o);
      return ExitCodes.OK;
    }
    for (Item item : items) {
      if (upload) {
        out().printf("would copy %s -> rs:%s (%d bytes)%n", item.file(), item.key(), item.size());
      } else {
        out()
            .printf(
                "would copy rs:%s (version %s) -> %s (%d bytes)%n",
                item.key(), item.version().version(), item.file(), item.size());
      }
    }
    out()
        .printf(
            "cp: would copy %d file%s, %s (dry run)%n",
            items.size(), items.size() == 1 ? "" : "s", Progress.size(total));
    return ExitCodes.OK;
  }

  /** What a download copies: the keys and their newest versions, and where each goes. */
  private List<Item> downloads(RafeStore store) throws IOException, UsageException {
    String remote = source.substring(REMOTE.length());
    Path target = Path.of(dest);
    List<Item> items = new ArrayList<>();
    if (!recursive) {
      HistoryPage h = store.blocking().history(remote, Optional.empty(), 1);
      if (h.versions().isEmpty()) {
        throw new KeyNotFoundException(remote, "it has no versions (use -r to copy a prefix)");
      }
      VersionInfo v = h.versions().get(0);
      Path file =
          Files.isDirectory(target) || dest.endsWith("/")
              ? target.resolve(remote.substring(remote.lastIndexOf('/') + 1))
              : target;
      items.add(new Item(file, remote, v.size(), v));
      return items;
    }
    String prefix = remote.isEmpty() || remote.endsWith("/") ? remote : remote + "/";
    Path root = target.toAbsolutePath().normalize();
    List<String> unsafe = new ArrayList<>();
    Listing.walk(
        store,
        prefix,
        page -> {
          for (VersionInfo v : page) {
            String rel = v.key().substring(prefix.length());
            Path file = safeLocalPath(root, rel);
            if (file == null) {
              unsafe.add(v.key());
            } else {
              items.add(new Item(file, v.key(), v.size(), v));
            }
          }
        });
    if (!unsafe.isEmpty()) {
      // A key is data a (trusted) writer chose; it must not place files outside DEST.
      throw new UsageException(
          "cp: "
              + unsafe.size()
              + " key(s) under "
              + source
              + " do not map to a path inside "
              + dest
              + " (empty, '.' or '..' segments, or a trailing '/'): "
              + unsafe.subList(0, Math.min(5, unsafe.size()))
              + "; copy them one by one with 'cp rs:KEY FILE'");
    }
    if (items.isEmpty()) {
      throw new KeyNotFoundException(remote, "no keys under " + source);
    }
    return items;
  }

  /** {@code root/rel} if every segment of {@code rel} is a plain name; null otherwise. */
  static Path safeLocalPath(Path root, String rel) {
    if (rel.isEmpty()) {
      return null;
    }
    Path p = root;
    for (String segment : rel.split("/", -1)) {
      if (segment.isEmpty()
          || segment.equals(".")
          || segment.equals("..")
          || segment.contains("\\")
          || segment.indexOf('\0') >= 0) {
        return null;
      }
      p = p.resolve(segment);
    }
    return p.normalize().startsWith(root) ? p : null;
  }
}
