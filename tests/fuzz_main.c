/* tests/fuzz_main.c - runs a libFuzzer harness over files without libFuzzer:
   each argument is a file or a directory of files, each file one input. Lets
   `ninja test` replay the seed corpora (and any saved crash) with a plain
   compiler. Build with -DFUZZ_HARNESS='"tests/fuzz_problem.c"' (one
   translation unit). Prints `N passed, 0 failed`; a failing input aborts, as
   it would under the fuzzer. */
#include FUZZ_HARNESS /* first: it sets the feature macros */

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  uint8_t *buf;
  long n;
  if (!f) return 0;
  if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
    fclose(f);
    return 0;
  }
  buf = (uint8_t *)malloc((size_t)n + 1);
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
    fclose(f);
    free(buf);
    return 0;
  }
  fclose(f);
  printf("%s\n", path); /* the last name printed is the input that aborted */
  fflush(stdout);
  LLVMFuzzerTestOneInput(buf, (size_t)n);
  free(buf);
  return 1;
}

int main(int argc, char **argv) {
  int i, ran = 0, missing = 0;
  LLVMFuzzerInitialize(&argc, &argv);
  for (i = 1; i < argc; ++i) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      printf("FAIL: cannot read %s\n", argv[i]);
      ++missing;
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      DIR *d = opendir(argv[i]);
      struct dirent *e;
      while (d && (e = readdir(d)) != NULL) {
        char path[4096];
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
        if (run_file(path))
          ++ran;
        else
          printf("FAIL: cannot read %s\n", path), ++missing;
      }
      if (d) closedir(d);
    } else if (run_file(argv[i])) {
      ++ran;
    } else {
      printf("FAIL: cannot read %s\n", argv[i]), ++missing;
    }
  }
  if (ran == 0 && !missing) printf("FAIL: no inputs\n"), ++missing;
  printf("%d passed, %d failed\n", ran, missing);
  return missing ? 1 : 0;
}
