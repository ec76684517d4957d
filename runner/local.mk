# runner
