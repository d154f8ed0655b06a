mkdir -p $OUT/sites
export PYTHONPATH=$PWD
for n in lenet5_b64_fp32 mlp_b128_fp16 resnet18_b1_224_fp16 resnet18_b16_224_fp16 gpt2_small_t256_fp16 bert_base_b4_t128_fp16; do
  ( timeout 400 python -m engine.workload.capture.relabel sites --model workloads/zoo/models.py:$n --out $OUT/sites/$n.json > /tmp/$n.rl.log 2>&1; echo "$n rc=$?" >> $OUT/sites/log.txt; tail -2 /tmp/$n.rl.log >> $OUT/sites/log.txt ) &
done
wait
cat $OUT/sites/log.txt
