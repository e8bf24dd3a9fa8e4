;; Pillow's 8-bit resampling passes (src/libImaging/Resample.c, ImagingResampleHorizontal_8bpc /
;; ImagingResampleVertical_8bpc) with WebAssembly SIMD. The source of pilResampleWasm.ts:
;; regenerate it with `node scripts/buildResampleWasm.mjs` after editing this file (a test checks
;; that the two agree).
;;
;; Arithmetic, as Pillow's: per output value, a sum starting at half a unit (1 << 21) of
;; source byte × 22-bit fixed-point weight in wrapping 32-bit integers, then an arithmetic shift
;; by 22 and a clip to 0–255 (the saturating narrowings clip exactly as Pillow's clip8 does:
;; negative → 0, ≥ 256 → 255). The weights and each output's first source index and tap count
;; come from pilResample.ts (`pilCoeffs`), laid out as Int32 arrays in this module's memory:
;; bounds = [first, count] per output, weights = `ksize` per output.
;;
;; Buffers are placed by pilResampleWasm.ts with 16 bytes of slack after each: the horizontal
;; pass reads one byte past an RGB pixel, the vertical pass reads and writes whole 16-byte blocks.
(module
  (memory (export "memory") 1)

  ;; Horizontal pass, row by row. Source pixels are `srcPix` bytes apart (3 = RGB, 4 = RGB and
  ;; an unused byte); rows `rowStride` bytes apart. Output pixels are 4 bytes (RGB and an unused
  ;; byte), `outW` per row, rows packed. One i32x4 holds one pixel's channels; its 4th lane is
  ;; computed like the others and never read as a colour.
  (func (export "hpass")
    (param $src i32) (param $srcPix i32) (param $rowStride i32) (param $rows i32)
    (param $dst i32) (param $outW i32) (param $bounds i32) (param $kk i32) (param $ksize i32)
    (local $y i32) (local $xx i32) (local $t i32) (local $n i32)
    (local $srow i32) (local $p i32) (local $kp i32) (local $kend i32) (local $d i32) (local $b i32)
    (local $kstep i32)
    (local $acc v128) (local $half v128) (local $r v128)
    (local.set $half (i32x4.splat (i32.const 0x200000)))
    (local.set $kstep (i32.shl (local.get $ksize) (i32.const 2)))
    (local.set $d (local.get $dst))
    (local.set $srow (local.get $src))
    (block $done_y
      (loop $ly
        (br_if $done_y (i32.ge_u (local.get $y) (local.get $rows)))
        (local.set $xx (i32.const 0))
        (local.set $b (local.get $bounds))
        (local.set $kp (local.get $kk))
        (block $done_x
          (loop $lx
            (br_if $done_x (i32.ge_u (local.get $xx) (local.get $outW)))
            (local.set $p
              (i32.add (local.get $srow) (i32.mul (i32.load (local.get $b)) (local.get $srcPix))))
            (local.set $n (i32.load offset=4 (local.get $b)))
            (local.set $acc (local.get $half))
            (local.set $t (local.get $kp))
            (local.set $kend (i32.add (local.get $kp) (i32.shl (local.get $n) (i32.const 2))))
            (block $done_t
              (loop $lt
                (br_if $done_t (i32.ge_u (local.get $t) (local.get $kend)))
                (local.set $acc
                  (i32x4.add (local.get $acc)
                    (i32x4.mul
                      (i32x4.extend_low_i16x8_u
                        (i16x8.extend_low_i8x16_u (v128.load32_zero (local.get $p))))
                      (v128.load32_splat (local.get $t)))))
                (local.set $p (i32.add (local.get $p) (local.get $srcPix)))
                (local.set $t (i32.add (local.get $t) (i32.const 4)))
                (br $lt)))
            (local.set $r (i32x4.shr_s (local.get $acc) (i32.const 22)))
            (local.set $r (i16x8.narrow_i32x4_s (local.get $r) (local.get $r)))
            (local.set $r (i8x16.narrow_i16x8_u (local.get $r) (local.get $r)))
            (v128.store32_lane 0 (local.get $d) (local.get $r))
            (local.set $d (i32.add (local.get $d) (i32.const 4)))
            (local.set $b (i32.add (local.get $b) (i32.const 8)))
            (local.set $kp (i32.add (local.get $kp) (local.get $kstep)))
            (local.set $xx (i32.add (local.get $xx) (i32.const 1)))
            (br $lx)))
        (local.set $srow (i32.add (local.get $srow) (local.get $rowStride)))
        (local.set $y (i32.add (local.get $y) (i32.const 1)))
        (br $ly)))
  )

  ;; Vertical pass over rows of `stride` bytes (any channel layout: each byte is filtered on its
  ;; own), 16 bytes at a time in four i32x4 sums. Output rows are `stride` bytes too.
  (func (export "vpass")
    (param $src i32) (param $stride i32) (param $dst i32) (param $outH i32)
    (param $bounds i32) (param $kk i32) (param $ksize i32)
    (local $yy i32) (local $c i32) (local $n i32)
    (local $base i32) (local $p i32) (local $kp0 i32) (local $kp i32) (local $kend i32) (local $d i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $v v128) (local $k v128) (local $lo v128) (local $hi v128) (local $half v128)
    (local.set $half (i32x4.splat (i32.const 0x200000)))
    (block $done_y
      (loop $ly
        (br_if $done_y (i32.ge_u (local.get $yy) (local.get $outH)))
        (local.set $base
          (i32.add (local.get $src)
            (i32.mul
              (i32.load (i32.add (local.get $bounds) (i32.shl (local.get $yy) (i32.const 3))))
              (local.get $stride))))
        (local.set $n
          (i32.load offset=4 (i32.add (local.get $bounds) (i32.shl (local.get $yy) (i32.const 3)))))
        (local.set $kp0
          (i32.add (local.get $kk) (i32.shl (i32.mul (local.get $yy) (local.get $ksize)) (i32.const 2))))
        (local.set $kend (i32.add (local.get $kp0) (i32.shl (local.get $n) (i32.const 2))))
        (local.set $d (i32.add (local.get $dst) (i32.mul (local.get $yy) (local.get $stride))))
        (local.set $c (i32.const 0))
        (block $done_c
          (loop $lc
            (br_if $done_c (i32.ge_u (local.get $c) (local.get $stride)))
            (local.set $a0 (local.get $half))
            (local.set $a1 (local.get $half))
            (local.set $a2 (local.get $half))
            (local.set $a3 (local.get $half))
            (local.set $p (i32.add (local.get $base) (local.get $c)))
            (local.set $kp (local.get $kp0))
            (block $done_t
              (loop $lt
                (br_if $done_t (i32.ge_u (local.get $kp) (local.get $kend)))
                (local.set $v (v128.load (local.get $p)))
                (local.set $k (v128.load32_splat (local.get $kp)))
                (local.set $lo (i16x8.extend_low_i8x16_u (local.get $v)))
                (local.set $hi (i16x8.extend_high_i8x16_u (local.get $v)))
                (local.set $a0
                  (i32x4.add (local.get $a0)
                    (i32x4.mul (i32x4.extend_low_i16x8_u (local.get $lo)) (local.get $k))))
                (local.set $a1
                  (i32x4.add (local.get $a1)
                    (i32x4.mul (i32x4.extend_high_i16x8_u (local.get $lo)) (local.get $k))))
                (local.set $a2
                  (i32x4.add (local.get $a2)
                    (i32x4.mul (i32x4.extend_low_i16x8_u (local.get $hi)) (local.get $k))))
                (local.set $a3
                  (i32x4.add (local.get $a3)
                    (i32x4.mul (i32x4.extend_high_i16x8_u (local.get $hi)) (local.get $k))))
                (local.set $p (i32.add (local.get $p) (local.get $stride)))
                (local.set $kp (i32.add (local.get $kp) (i32.const 4)))
                (br $lt)))
            (v128.store (i32.add (local.get $d) (local.get $c))
              (i8x16.narrow_i16x8_u
                (i16x8.narrow_i32x4_s
                  (i32x4.shr_s (local.get $a0) (i32.const 22))
                  (i32x4.shr_s (local.get $a1) (i32.const 22)))
                (i16x8.narrow_i32x4_s
                  (i32x4.shr_s (local.get $a2) (i32.const 22))
                  (i32x4.shr_s (local.get $a3) (i32.const 22)))))
            (local.set $c (i32.add (local.get $c) (i32.const 16)))
            (br $lc)))
        (local.set $yy (i32.add (local.get $yy) (i32.const 1)))
        (br $ly)))
  )

  ;; One tile's values, channels first: the T × T window of an image whose first pixel is at
  ;; `src` (pixels `pix` bytes apart, rows `rowStride` bytes apart) becomes three planes of T × T
  ;; float32 at `dst`, each byte looked up in its channel's 256-entry float32 table (`lut`: red,
  ;; green, blue one after the other; rescale and normalisation are computed by the caller).
  (func (export "planes")
    (param $src i32) (param $pix i32) (param $rowStride i32) (param $T i32) (param $dst i32) (param $lut i32)
    (local $y i32) (local $p i32) (local $o i32) (local $end i32) (local $plane i32) (local $row i32)
    (local.set $plane (i32.shl (i32.mul (local.get $T) (local.get $T)) (i32.const 2)))
    (local.set $row (local.get $src))
    (local.set $o (local.get $dst))
    (block $done_y
      (loop $ly
        (br_if $done_y (i32.ge_u (local.get $y) (local.get $T)))
        (local.set $p (local.get $row))
        (local.set $end (i32.add (local.get $o) (i32.shl (local.get $T) (i32.const 2))))
        (block $done_x
          (loop $lx
            (br_if $done_x (i32.ge_u (local.get $o) (local.get $end)))
            (f32.store (local.get $o)
              (f32.load (i32.add (local.get $lut) (i32.shl (i32.load8_u (local.get $p)) (i32.const 2)))))
            (f32.store (i32.add (local.get $o) (local.get $plane))
              (f32.load offset=1024
                (i32.add (local.get $lut) (i32.shl (i32.load8_u offset=1 (local.get $p)) (i32.const 2)))))
            (f32.store (i32.add (local.get $o) (i32.shl (local.get $plane) (i32.const 1)))
              (f32.load offset=2048
                (i32.add (local.get $lut) (i32.shl (i32.load8_u offset=2 (local.get $p)) (i32.const 2)))))
            (local.set $p (i32.add (local.get $p) (local.get $pix)))
            (local.set $o (i32.add (local.get $o) (i32.const 4)))
            (br $lx)))
        (local.set $row (i32.add (local.get $row) (local.get $rowStride)))
        (local.set $y (i32.add (local.get $y) (i32.const 1)))
        (br $ly)))
  )
)
