/* Stand-in for a kernel source file: kmtrace's --vmlinux tests (tests/standin/build.sh). */
__asm__(".text\n.globl _text\n.type _text, @notype\n_text:\n");
void _start(void) { for (;;); }
