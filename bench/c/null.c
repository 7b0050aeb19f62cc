/* The twin's model: no model, every prediction 0. The flash of a model is the firmware's
 * text + data minus this twin's. */
#include <stdint.h>

int32_t model_predict(const void *features, int32_t features_length)
{
    (void)features;
    (void)features_length;
    return 0;
}

#ifdef BENCH_WINDOWS
/* The pipeline twin: no statistics, no model. */
int32_t window_classify(const void *samples)
{
    (void)samples;
    return 0;
}
#endif
