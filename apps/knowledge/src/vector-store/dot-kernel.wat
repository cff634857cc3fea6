(module
  (import "env" "memory" (memory 1))
  ;; scores[i] = dot(q, base[i]) for i in [0, n); rows are `stride` f32 apart, stride % 16 == 0.
  (func (export "scores") (param $q i32) (param $base i32) (param $n i32) (param $stride i32) (param $out i32)
    (local $row i32) (local $end i32) (local $p i32) (local $qp i32) (local $i i32) (local $rowBytes i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $rowBytes (i32.shl (local.get $stride) (i32.const 2)))
    (local.set $row (local.get $base))
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $a0 (v128.const i64x2 0 0))
        (local.set $a1 (v128.const i64x2 0 0))
        (local.set $a2 (v128.const i64x2 0 0))
        (local.set $a3 (v128.const i64x2 0 0))
        (local.set $p (local.get $row))
        (local.set $qp (local.get $q))
        (local.set $end (i32.add (local.get $row) (local.get $rowBytes)))
        (loop $inner
          (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load (local.get $p)) (v128.load (local.get $qp)))))
          (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (v128.load offset=16 (local.get $p)) (v128.load offset=16 (local.get $qp)))))
          (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (v128.load offset=32 (local.get $p)) (v128.load offset=32 (local.get $qp)))))
          (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (v128.load offset=48 (local.get $p)) (v128.load offset=48 (local.get $qp)))))
          (local.set $p (i32.add (local.get $p) (i32.const 64)))
          (local.set $qp (i32.add (local.get $qp) (i32.const 64)))
          (br_if $inner (i32.lt_u (local.get $p) (local.get $end))))
        (local.set $a0 (f32x4.add (f32x4.add (local.get $a0) (local.get $a1)) (f32x4.add (local.get $a2) (local.get $a3))))
        (f32.store
          (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 2)))
          (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $a0)) (f32x4.extract_lane 1 (local.get $a0)))
            (f32.add (f32x4.extract_lane 2 (local.get $a0)) (f32x4.extract_lane 3 (local.get $a0)))))
        (local.set $row (local.get $end))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rows))))
  ;; Quantised rows (issue 36): scores[i] = f32(dot(q16, base8[i])) * scales[i], where base8 rows
  ;; are `stride` int8 apart (stride % 32 == 0) and q16 is the query as int16 (2 * stride bytes).
  ;; Each 16 int8 are sign-extended to two i16x8 and multiplied pairwise with i32x4.dot_i16x8_s.
  (func (export "scores_i8") (param $q i32) (param $base i32) (param $n i32) (param $stride i32) (param $scales i32) (param $out i32)
    (local $i i32) (local $p i32) (local $qp i32) (local $end i32) (local $d0 v128) (local $d1 v128)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $p (local.get $base))
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $a0 (v128.const i64x2 0 0))
        (local.set $a1 (v128.const i64x2 0 0))
        (local.set $a2 (v128.const i64x2 0 0))
        (local.set $a3 (v128.const i64x2 0 0))
        (local.set $qp (local.get $q))
        (local.set $end (i32.add (local.get $p) (local.get $stride)))
        (loop $inner
          (local.set $d0 (v128.load (local.get $p)))
          (local.set $d1 (v128.load offset=16 (local.get $p)))
          (local.set $a0 (i32x4.add (local.get $a0) (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $d0)) (v128.load (local.get $qp)))))
          (local.set $a1 (i32x4.add (local.get $a1) (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $d0)) (v128.load offset=16 (local.get $qp)))))
          (local.set $a2 (i32x4.add (local.get $a2) (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $d1)) (v128.load offset=32 (local.get $qp)))))
          (local.set $a3 (i32x4.add (local.get $a3) (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $d1)) (v128.load offset=48 (local.get $qp)))))
          (local.set $p (i32.add (local.get $p) (i32.const 32)))
          (local.set $qp (i32.add (local.get $qp) (i32.const 64)))
          (br_if $inner (i32.lt_u (local.get $p) (local.get $end))))
        (local.set $a0 (i32x4.add (i32x4.add (local.get $a0) (local.get $a1)) (i32x4.add (local.get $a2) (local.get $a3))))
        (f32.store
          (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 2)))
          (f32.mul
            (f32.convert_i32_s
              (i32.add
                (i32.add (i32x4.extract_lane 0 (local.get $a0)) (i32x4.extract_lane 1 (local.get $a0)))
                (i32.add (i32x4.extract_lane 2 (local.get $a0)) (i32x4.extract_lane 3 (local.get $a0)))))
            (f32.load (i32.add (local.get $scales) (i32.shl (local.get $i) (i32.const 2))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rows))))
)
