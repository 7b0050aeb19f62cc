# Toolchain file: RV32IMAC with riscv64-unknown-elf-gcc (QEMU virt, -bios none).
#   cmake -B build-rv --toolchain cmake/riscv32.cmake
# -march=rv32imac -mabi=ilp32 selects that multilib of libgcc (64-bit division and the like).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)
set(CMAKE_C_COMPILER riscv64-unknown-elf-gcc)
set(CMAKE_ASM_COMPILER riscv64-unknown-elf-gcc)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_C_FLAGS_INIT "-march=rv32imac -mabi=ilp32 -mcmodel=medany")
set(CMAKE_ASM_FLAGS_INIT "-march=rv32imac -mabi=ilp32 -mcmodel=medany")
