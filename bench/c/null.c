/* The twin's model: no model, every prediction 0. The flash of a model is the firmware's
 * text + data minus this twin's. */
#include <stdint.h>

int32_t model_predict(const void *features, int32_t features_length)
{
    (void)features;
    (void)features_length;
    return 0;
}

#if defined(BENCH_WINDOWS) || defined(BENCH_STREAM)
/* The pipeline twin: no statistics, no model. */
int32_t window_classify(const void *samples)
{
    (void)samples;
    return 0;
}
#endif

#ifdef BENCH_STREAM
/* The streaming twin: no stream, never a window. */
void stream_init(void)
{
}

int32_t stream_push(const void *frame)
{
    (void)frame;
    return -1;
}
#endif
