/* Startup for the Cortex-M targets on the QEMU MPS2 boards (mps2-an385,
 * mps2-an386, mps2-an500), with mps2.ld.
 *
 * The cross toolchain links this into every binary it builds for a Cortex-M
 * platform, so any cc_binary or cc_test is a complete firmware image:
 *
 *   vector table  initial stack pointer, Reset_Handler, fault handlers
 *   reset         enables the FPU (FPU cores; before any floating-point
 *                 instruction, or the core locks up), copies .data from flash
 *                 to RAM, zeroes .bss, starts newlib's semihosting I/O, reads
 *                 the command line, then exit(main(argc, argv))
 *   faults        print the exception number through semihosting and exit
 *                 with status 128 + that number
 *   SysTick       the same, unless the program defines SysTick_Handler
 *
 * I/O and exit go through Arm semihosting (newlib's librdimon), which QEMU
 * implements with -semihosting: stdout, files relative to QEMU's working
 * directory, and the exit status (SYS_EXIT_EXTENDED). The command line is
 * QEMU's -semihosting-config arg=... list, joined with spaces; an argument
 * therefore cannot contain a space. On hardware without a debugger attached,
 * semihosting calls fault.
 *
 * C99, compiled for each core by the toolchain (targets/toolchains.bzl). */
#include <stdint.h>
#include <stdlib.h>

/* From mps2.ld. */
extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __bss_start[], __bss_end[];
extern uint32_t __stack_top[];

int main(int argc, char **argv);

/* librdimon (the toolchain links with --specs=rdimon.specs): opens stdin,
 * stdout and stderr on the semihosting console. */
void initialise_monitor_handles(void);

enum {
  SYS_WRITE0 = 0x04,
  SYS_GET_CMDLINE = 0x15,
  SYS_EXIT_EXTENDED = 0x20,
  ADP_STOPPED_APPLICATION_EXIT = 0x20026
};

static int semihost(int op, void *arg) {
  register int r0 __asm__("r0") = op;
  register void *r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

static void __attribute__((noreturn)) semihost_exit(int status) {
  uint32_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, (uint32_t)status};
  for (;;)
    semihost(SYS_EXIT_EXTENDED, block);
}

#define MAX_CMDLINE 4096
#define MAX_ARGS 32

static char cmdline[MAX_CMDLINE];
static char *args[MAX_ARGS + 1];

/* Splits QEMU's space-joined argument list in place; returns argc. */
static int read_command_line(void) {
  struct {
    char *buf;
    int len;
  } block = {cmdline, MAX_CMDLINE - 1};
  int argc = 0;
  char *p;
  if (semihost(SYS_GET_CMDLINE, &block) != 0) {
    semihost(SYS_WRITE0, "startup: the command line does not fit\n");
    semihost_exit(2);
  }
  cmdline[block.len] = '\0';
  for (p = cmdline; *p;) {
    while (*p == ' ')
      *p++ = '\0';
    if (!*p)
      break;
    if (argc == MAX_ARGS) {
      semihost(SYS_WRITE0, "startup: too many arguments\n");
      semihost_exit(2);
    }
    args[argc++] = p;
    while (*p && *p != ' ')
      ++p;
  }
  args[argc] = NULL;
  return argc;
}

/* Everything after the FPU is on. noinline: Reset_Handler itself must not
 * contain a floating-point instruction, so nothing of this may move into it. */
static void __attribute__((noinline, noreturn)) start(void) {
  uint32_t *src = __data_load, *dst;
  int argc;
  for (dst = __data_start; dst < __data_end;)
    *dst++ = *src++;
  for (dst = __bss_start; dst < __bss_end;)
    *dst++ = 0;
  initialise_monitor_handles();
  argc = read_command_line();
  exit(main(argc, args)); /* flushes stdio; librdimon's _exit reports the status */
}

void __attribute__((noreturn)) Reset_Handler(void) {
#if defined(__ARM_FP)
  /* CPACR: full access to CP10 and CP11 (the FPU). */
  *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20;
  __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
  start();
}

static void Fault_Handler(void) {
  static char msg[] = "startup: exception NN\n";
  uint32_t ipsr;
  __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
  ipsr &= 0x1FF;
  msg[19] = (char)('0' + ipsr / 10 % 10);
  msg[20] = (char)('0' + ipsr % 10);
  semihost(SYS_WRITE0, msg);
  semihost_exit(128 + (int)ipsr);
}

/* A program that enables the SysTick interrupt defines its own handler. */
void SysTick_Handler(void) __attribute__((weak, alias("Fault_Handler")));

/* The 16 system exceptions; these boards' interrupts stay disabled. */
typedef union {
  void (*handler)(void);
  uint32_t *stack;
} vector;

__attribute__((section(".vectors"), used)) static const vector vectors[16] = {
    {.stack = __stack_top},
    {Reset_Handler},
    {Fault_Handler}, /* NMI */
    {Fault_Handler}, /* HardFault */
    {Fault_Handler}, /* MemManage */
    {Fault_Handler}, /* BusFault */
    {Fault_Handler}, /* UsageFault */
    {0}, {0}, {0}, {0},
    {Fault_Handler}, /* SVCall */
    {Fault_Handler}, /* DebugMonitor */
    {0},
    {Fault_Handler}, /* PendSV */
    {SysTick_Handler},
};
